use super::*;

use crate::machine::{
    default_max_memory, default_memory_budget, kib_field, parse_address_space, resident_bytes,
};

#[test]
fn sizes_parse_with_binary_units() {
    assert_eq!(parse_memory_size("1048576"), Ok(1 << 20));
    assert_eq!(parse_memory_size("512M"), Ok(512 << 20));
    assert_eq!(parse_memory_size("2G"), Ok(2 << 30));
    assert_eq!(parse_memory_size(" 2 GiB "), Ok(2 << 30));
    assert_eq!(parse_memory_size("64mb"), Ok(64 << 20));
    assert_eq!(parse_memory_size("1.5k"), Ok(1536));
    assert!(parse_memory_size("").is_err());
    assert!(parse_memory_size("-1G").is_err());
    assert!(parse_memory_size("0").is_err());
    assert!(parse_memory_size("0")
        .unwrap_err()
        .contains("less than one byte"));
    let e = parse_memory_size("99999999999999999999G").unwrap_err();
    assert!(e.contains("too large"), "{e}");
    assert!(parse_memory_size("12X").is_err());
    assert!(parse_memory_size("99999999999T").is_err());
}

#[test]
fn proc_fields_are_read_in_bytes() {
    let status = "Name:\tx\nVmRSS:\t    2048 kB\nVmSwap:\t0 kB\n";
    assert_eq!(kib_field(status, "VmRSS:"), Some(2 << 20));
    assert_eq!(kib_field(status, "VmHWM:"), None);
    if cfg!(target_os = "linux") {
        assert!(resident_bytes().is_some_and(|b| b > 0));
        assert!(default_max_memory() >= 64 << 20);
    }
}

#[test]
fn the_default_budget_is_the_smallest_limit_of_the_process() {
    const G: u64 = 1 << 30;
    let meminfo = "MemTotal:       33554432 kB\nMemAvailable:   16777216 kB\n";
    // Half of the available 16 GiB when nothing else limits.
    assert_eq!(default_memory_budget(Some(meminfo), None, []), Some(8 * G));
    // v2 "max" and v1's huge "no limit" are no limit.
    let none = ["max\n", "9223372036854771712\n"];
    assert_eq!(
        default_memory_budget(Some(meminfo), None, none),
        Some(8 * G)
    );
    // A cgroup of 4 GiB (any level of the hierarchy): half of it.
    let cg = ["max\n", "4294967296\n", "8589934592\n"];
    assert_eq!(default_memory_budget(Some(meminfo), None, cg), Some(2 * G));
    // An address-space limit of 4 GB, 2.4 GB of it reserved (stacks):
    // a quarter of the rest, the smallest here.
    let as4 = Some((4_000_000_000, 2_400_000_000));
    assert_eq!(
        default_memory_budget(Some(meminfo), as4, cg),
        Some(400_000_000)
    );
    // MemTotal when MemAvailable is missing (old kernels).
    let old = "MemTotal:       2097152 kB\n";
    assert_eq!(default_memory_budget(Some(old), None, []), Some(G));
    // Never below 64 MiB; nothing known: no answer (the caller's
    // fallback).
    assert_eq!(
        default_memory_budget(None, Some((4 << 30, 5 << 30)), []),
        Some(64 << 20)
    );
    assert_eq!(default_memory_budget(None, None, ["max"]), None);
}

#[test]
fn the_address_space_limit_is_read_from_proc_limits() {
    let unlimited =
        "Limit                     Soft Limit           Hard Limit           Units     \n\
             Max address space         unlimited            unlimited            bytes     \n";
    assert_eq!(parse_address_space(unlimited), None);
    let capped = "Max cpu time              unlimited            unlimited            seconds   \n\
             Max address space         4000000000           unlimited            bytes     \n";
    assert_eq!(parse_address_space(capped), Some(4_000_000_000));
}
