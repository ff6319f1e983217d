//! Sizes, rates and counts as people read them, in the units `fasthash --bench` uses: decimal
//! (kB, MB, GB: powers of 1000, as `openssl speed` and disk makers count), two decimals, and
//! counts with a comma every three digits. The progress bar and `--stats` both write them here.

/// The prefixes of decimal units, one for each power of 1000 after bytes.
const PREFIXES: [&str; 6] = ["k", "M", "G", "T", "P", "E"];

/// `512 B`, `1.00 kB`, `5.67 GB`: whole bytes below 1000, else two decimals of the largest
/// unit the size reaches.
pub(crate) fn bytes(count: u64) -> String {
    scaled(count as f64, "B")
}

/// `845.20 MB/s`, `2.45 GB/s`: `count` bytes over `seconds`.
pub(crate) fn rate(count: u64, seconds: f64) -> String {
    scaled(per_second(count, seconds), "B/s")
}

/// `count` over `seconds`; a run too quick to time counts as a nanosecond, so the rate stays a
/// number.
pub(crate) fn per_second(count: u64, seconds: f64) -> f64 {
    count as f64 / seconds.max(1e-9)
}

fn scaled(value: f64, unit: &str) -> String {
    if value < 1000.0 {
        return format!("{} {unit}", value.round() as u64);
    }
    let mut value = value / 1000.0;
    let mut prefix = 0;
    // Rounded to two decimals, 999.995 would print as 1000.00 of the smaller unit.
    while value >= 999.995 && prefix + 1 < PREFIXES.len() {
        value /= 1000.0;
        prefix += 1;
    }
    format!("{value:.2} {}{unit}", PREFIXES[prefix])
}

/// `1,234,567`.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `2.31 s`: seconds, two decimals.
pub(crate) fn seconds(seconds: f64) -> String {
    format!("{seconds:.2} s")
}

/// `0:42`, `12:05`, `1:02:03`: a time left, whole seconds.
pub(crate) fn clock(seconds: u64) -> String {
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_decimal_with_two_decimals() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1000), "1.00 kB");
        assert_eq!(bytes(1024), "1.02 kB");
        assert_eq!(bytes(5_670_000_000), "5.67 GB");
        assert_eq!(bytes(999_999), "1.00 MB");
        assert_eq!(bytes(u64::MAX), "18.45 EB");
    }

    #[test]
    fn rates_are_bytes_over_seconds() {
        assert_eq!(rate(2_450_000_000, 1.0), "2.45 GB/s");
        assert_eq!(rate(845_200_000, 1.0), "845.20 MB/s");
        assert_eq!(rate(500, 2.0), "250 B/s");
        assert_eq!(rate(0, 0.0), "0 B/s");
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1234), "1,234");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(100_000), "100,000");
    }

    #[test]
    fn times() {
        assert_eq!(seconds(2.314), "2.31 s");
        assert_eq!(clock(42), "0:42");
        assert_eq!(clock(725), "12:05");
        assert_eq!(clock(3723), "1:02:03");
    }
}
