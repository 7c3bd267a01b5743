//! A panic's payload as text, the one conversion every report of a panic
//! in protocol code uses (the engine's errors and `prust::explore`'s), so
//! that the same panic reads the same wherever it is caught.

/// The message of a panic payload: the `&str` or `String` that `panic!`
/// carries, or a placeholder for a payload of another type
/// (`std::panic::panic_any`).
///
/// ```
/// let payload = std::panic::catch_unwind(|| panic!("boom {}", 1)).unwrap_err();
/// assert_eq!(engine::panic_message(payload.as_ref()), "boom 1");
/// ```
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}
