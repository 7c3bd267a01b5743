use super::*;

#[test]
fn timeouts_must_be_positive_and_huge_ones_are_none() {
    assert_eq!(parse_timeout("30"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_timeout("0.5"), Ok(Duration::from_millis(500)));
    // as PRUST_TIMEOUT: no timeout
    for none in ["inf", "1e300", "1e10"] {
        assert_eq!(parse_timeout(none), Ok(Duration::MAX), "{none}");
    }
    for bad in ["0", "-1", "NaN", "-inf", "1e-12", "ten", ""] {
        assert!(parse_timeout(bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn bitstate_takes_no_zero_and_no_array_beyond_a_power_of_two() {
    assert_eq!(parse_bits("1_000"), Ok(1000));
    // 0 was once rounded up to 64 bits; above 2^63 the rounding overflowed
    for bad in ["0", "18446744073709551615", "-1", "many"] {
        assert!(parse_bits(bad).is_err(), "{bad:?} accepted");
    }
    assert!(parse_bits("0").unwrap_err().contains("0 bits"));
}

#[test]
fn the_summary_counts_each_outcome() {
    let codes = [Exit::Ok, Exit::Violated, Exit::Violated, Exit::Error];
    let s = summary(
        "chess",
        Runtime::Liberal,
        &codes,
        Duration::ZERO,
        None,
        None,
    );
    assert_eq!(
        s,
        "4 formula(s) on chess (liberal): 1 hold, 2 violated, 0 inconclusive, 1 error(s); 0.000 s"
    );
    let share = "2/3".parse().ok();
    let s = summary(
        "chess",
        Runtime::Liberal,
        &codes,
        Duration::ZERO,
        share,
        None,
    );
    assert!(
            s.contains(": 1 hold on share 2/3 (a formula holds when it holds on every share 1/3 to 3/3), 2 violated"),
            "{s}"
        );
}

#[test]
fn error_records_carry_the_message() {
    let r = record(
        "chess",
        Runtime::Strict,
        "G \"x\"",
        &Outcome::Error("bad \"atom\"\n".into()),
    );
    assert_eq!(
        r,
        r#"{"formula":"G \"x\"","protocol":"chess","runtime":"strict","verdict":"error","message":"bad \"atom\""}"#
    );
}
