//! RFC 3339 date-times (the ISO 8601 profile JSON engines write, e.g.
//! `2026-07-06T09:30:00.123Z`), parsed into instants that compare across
//! offsets. No clock: only the text is read.
//!
//! Written here rather than with jiff (0.2.46), whose `Timestamp` parser reads
//! the wider Temporal/ISO 8601 grammar: of 16 inputs parsed both ways it took
//! eight that RFC 3339 rejects (`2026-07-06 09:30:00Z`, `2026-07-06T09:30Z`,
//! offsets `+0200` and `+02`, `…Z[Europe/Paris]`, `20260706T093000Z`, a comma
//! before the fraction, the year `+002026`) and refused a fraction of ten
//! digits, which RFC 3339 allows; the decision rules would then pass
//! timestamps the docket's format forbids.

/// An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    pub seconds: i64,
    pub nanos: u32,
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `None` for anything else,
/// including impossible dates (February 30th, hour 24).
pub fn parse(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    // Every digit of the fixed part checked at once; then read unchecked.
    const DIGITS: [usize; 14] = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    if !DIGITS.iter().all(|&at| b[at].is_ascii_digit()) {
        return None;
    }
    let two = |at: usize| i64::from(b[at] - b'0') * 10 + i64::from(b[at + 1] - b'0');
    let (year, month, day) = (two(0) * 100 + two(2), two(5), two(8));
    let (hour, minute, second) = (two(11), two(14), two(17));
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0u32;
    if b[at] == b'.' {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return None;
        }
        // Digits past nanoseconds are kept in the text but not compared.
        for (i, d) in b[start..at].iter().take(9).enumerate() {
            nanos += u32::from(d - b'0') * 10u32.pow(8 - i as u32);
        }
    }
    let offset = match &b[at..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            if ![h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) {
                return None;
            }
            let (h, m) = (two(at + 1), two(at + 4));
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset * 60;
    Some(Timestamp { seconds, nanos })
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of `days_from_civil`: days since 1970-01-01 to (year,
/// month, day), proleptic Gregorian.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Unix seconds as RFC 3339 in UTC to the second (`2025-11-29T19:00:00Z`),
/// the form GitHub writes its timestamps in.
pub fn format_utc(seconds: u64) -> String {
    let (y, m, d) = civil_from_days((seconds / 86_400) as i64);
    let rem = seconds % 86_400;
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_rfc3339() {
        assert_eq!(parse("1970-01-01T00:00:00Z"), Some(Timestamp { seconds: 0, nanos: 0 }));
        assert_eq!(parse("2026-07-06T09:30:00.5Z").unwrap().nanos, 500_000_000);
        assert_eq!(parse("2026-07-06T11:30:00+02:00"), parse("2026-07-06T09:30:00Z"));
        assert!(parse("2026-07-06T09:30:00Z") < parse("2026-07-06T09:30:00.001Z"));
        assert_eq!(parse("2024-02-29T00:00:00Z").map(|t| t.seconds), Some(1_709_164_800));
        assert_eq!(parse("2026-07-06T09:30:00.1234567891Z").unwrap().nanos, 123_456_789);
    }

    #[test]
    fn refuses_everything_else() {
        for bad in [
            "2026-07-06",
            "2026-07-06T09:30:00",
            "2026-07-06 09:30:00Z",
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-07-06T24:00:00Z",
            "2026-07-06T09:30:00.Z",
            "2026-07-06T09:30:00+0200",
            "2026-07-06T09:30:00+02",
            "2026-07-06T09:30Z",
            "2026-07-06T09:30:00Z[Europe/Paris]",
            "20260706T093000Z",
            "2026-07-06T09:30:00,5Z",
            "+002026-07-06T09:30:00Z",
            "06/07/2026",
            "2026-07-06T09:30:00Zjunk",
            "２０２６-07-06T09:30:00Z",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            let _ = parse(&text);
        }

        #[test]
        fn order_follows_the_calendar(a in 0i64..4_000_000_000, b in 0i64..4_000_000_000) {
            let show = |s: i64| {
                let days = s.div_euclid(86_400);
                let rest = s.rem_euclid(86_400);
                let (y, m, d) = civil_from_days(days);
                format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
            };
            let (ta, tb) = (parse(&show(a)).unwrap(), parse(&show(b)).unwrap());
            prop_assert_eq!(ta.seconds, a);
            prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
        }
    }
}
