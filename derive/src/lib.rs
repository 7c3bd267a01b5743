//! `#[derive(prust::Message)]`: a message enum, each variant of which is
//! one protocol message type named by the variant.
//!
//! Use it through the `prust` crate (`#[derive(prust::Message)]`); the
//! documentation of the trait it implements,
//! `engine::MessageEnum`, says what a message enum is.
//!
//! The derive implements `MessageEnum` and registers the enum, so that
//! every generic `T: Payload` API (`Message::new`, `dummies!`, the typed
//! channel ends) names a value by its variant. It refuses, with a
//! `compile_error!`, what cannot be a message enum:
//!
//! ```compile_fail
//! #[derive(Clone, Debug, prust_derive::Message)]
//! #[message(crate = "engine")]
//! struct Job(u32); // a struct is named by its type already: no derive needed
//! ```
//!
//! ```compile_fail
//! #[derive(Clone, Debug, prust_derive::Message)]
//! #[message(crate = "engine")]
//! enum Never {} // no variant: no message type
//! ```
//!
//! ```compile_fail
//! #[derive(Clone, Debug, prust_derive::Message)]
//! #[message(crate = "engine")]
//! enum Cmd<T> { Job(T), Stop } // generic: one registration per type is needed
//! ```
//!
//! ```compile_fail
//! #[derive(Clone, Copy, prust_derive::Message)]
//! #[message(crate = "engine")]
//! union Bits { a: u32, b: f32 }
//! ```
//!
//! ```compile_fail
//! #[derive(Clone, Debug, prust_derive::Message)]
//! #[message(krate = "engine")] // unknown key
//! enum Cmd { Job(u32), Stop }
//! ```
//!
//! The generated code names the `prust` crate (`::prust`); a crate that
//! depends on the engine alone says so with `#[message(crate = "engine")]`:
//!
//! ```
//! #[derive(Clone, Debug, prust_derive::Message)]
//! #[message(crate = "engine")]
//! enum Cmd {
//!     Job(u32),
//!     Stop,
//!     Resize { width: u16, height: u16 },
//! }
//! let m = engine::Message::new(Cmd::Resize { width: 1, height: 2 });
//! assert_eq!(m.type_name(), "Resize");
//! ```

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{parse_macro_input, Data, DeriveInput, Error, LitStr, Path};

/// Derives `MessageEnum` for an enum: each variant is one protocol message
/// type, named by the variant (`Cmd::Job(3)` is a `Job`). See the crate
/// documentation.
#[proc_macro_derive(Message, attributes(message))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn expand(input: &DeriveInput) -> Result<TokenStream2, Error> {
    let krate = crate_path(input)?;
    let name = &input.ident;
    let data = match &input.data {
        Data::Enum(data) => data,
        Data::Struct(s) => {
            return Err(Error::new(
                s.struct_token.span,
                "#[derive(Message)] is for enums (each variant one message type); \
                 a struct's message type is its name already, with no derive",
            ))
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "#[derive(Message)] is for enums (each variant one message type), not unions",
            ))
        }
    };
    if data.variants.is_empty() {
        return Err(Error::new(
            name.span(),
            format!("#[derive(Message)] on `{name}`, an enum with no variants: it has no message type to send"),
        ));
    }
    if let Some(param) = input.generics.params.first() {
        let span = match param {
            syn::GenericParam::Type(t) => t.ident.span(),
            syn::GenericParam::Lifetime(l) => l.lifetime.ident.span(),
            syn::GenericParam::Const(c) => c.ident.span(),
        };
        return Err(Error::new(
            span,
            format!(
                "#[derive(Message)] on `{name}`, a generic enum: a message enum is registered \
                 once, as one concrete type; make the enum concrete"
            ),
        ));
    }
    let names: Vec<String> = data.variants.iter().map(|v| v.ident.to_string()).collect();
    let arms = data.variants.iter().enumerate().map(|(i, v)| {
        let ident = &v.ident;
        quote! { Self::#ident { .. } => #i, }
    });
    Ok(quote! {
        impl #krate::__private::MessageEnum for #name {
            const VARIANTS: &'static [&'static str] = &[#(#names),*];
            fn variant_index(&self) -> usize {
                match self {
                    #(#arms)*
                }
            }
        }
        #krate::__private::inventory::submit! {
            #krate::__private::EnumEntry::new::<#name>()
        }
    })
}

/// The path of the crate that re-exports the engine's `__private` items:
/// `::prust`, or what `#[message(crate = "...")]` says.
fn crate_path(input: &DeriveInput) -> Result<TokenStream2, Error> {
    let mut krate = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("message")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                krate = Some(lit.parse::<Path>()?);
                Ok(())
            } else {
                Err(meta.error("unknown #[message] key; the one key is `crate = \"path\"`"))
            }
        })?;
    }
    Ok(match krate {
        Some(path) => quote!(#path),
        None => quote!(::prust),
    })
}
