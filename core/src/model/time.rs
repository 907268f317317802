//! Instants as plain values: the core never reads a clock, hosts pass time in.
//!
//! A [`Timestamp`] is nanoseconds since the Unix epoch (UTC). This module also
//! formats and parses the two wire forms Kubernetes uses: `metav1.Time`
//! (RFC 3339, whole seconds, `Z`) and `metav1.MicroTime` (six fractional digits).

use alloc::string::String;
use core::fmt;

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// An instant: nanoseconds since 1970-01-01T00:00:00Z.
///
/// The range (years 1677 to 2262) covers every instant an event can carry;
/// Go's zero time (year 1), which Kubernetes uses for "unset", is modelled as
/// `Option::<Timestamp>::None` wherever a field may be unset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Timestamp(i64);

impl Timestamp {
    /// The Unix epoch.
    pub const EPOCH: Timestamp = Timestamp(0);

    /// An instant from nanoseconds since the epoch.
    pub const fn from_nanos(nanos: i64) -> Self {
        Timestamp(nanos)
    }

    /// An instant from whole seconds since the epoch (saturating).
    pub const fn from_secs(secs: i64) -> Self {
        Timestamp(secs.saturating_mul(NANOS_PER_SECOND))
    }

    /// Nanoseconds since the epoch (Go's `UnixNano`).
    pub const fn nanos(self) -> i64 {
        self.0
    }

    /// The instant truncated to its whole second (towards the past).
    pub const fn truncate_to_second(self) -> Self {
        // Saturates in the first second of the range, which has no whole second before it.
        Timestamp(
            self.0
                .div_euclid(NANOS_PER_SECOND)
                .saturating_mul(NANOS_PER_SECOND),
        )
    }

    /// The instant truncated to its whole microsecond (towards the past),
    /// which is what a `MicroTime` keeps.
    pub const fn truncate_to_micro(self) -> Self {
        Timestamp(self.0.div_euclid(1_000).saturating_mul(1_000))
    }

    /// `self - earlier` in nanoseconds, saturating like Go's `Time.Sub`.
    pub const fn nanos_since(self, earlier: Timestamp) -> i64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The instant `nanos` later (saturating).
    pub const fn plus_nanos(self, nanos: i64) -> Self {
        Timestamp(self.0.saturating_add(nanos))
    }

    /// Formats as `metav1.Time` does: `2024-05-01T10:00:05Z`.
    pub fn to_rfc3339_seconds(self) -> String {
        let mut s = String::with_capacity(20);
        Rfc3339::seconds(self).push_to(&mut s);
        s
    }

    /// Formats as `metav1.MicroTime` does: `2024-05-01T10:00:05.123456Z`.
    pub fn to_rfc3339_micros(self) -> String {
        let mut s = String::with_capacity(27);
        Rfc3339::micros(self).push_to(&mut s);
        s
    }

    /// Formats with all nine fractional digits, trailing zeros removed
    /// (Go's `time.RFC3339Nano`).
    pub fn to_rfc3339_nanos(self) -> String {
        let mut s = String::with_capacity(30);
        Rfc3339::nanos(self).push_to(&mut s);
        s
    }

    /// Parses an RFC 3339 timestamp with an optional fraction and any offset,
    /// as Go's `time.Parse(time.RFC3339, …)` accepts it.
    ///
    /// ```
    /// use hush_core::Timestamp;
    /// let t = Timestamp::parse_rfc3339("2024-05-01T12:00:05.5+02:00").unwrap();
    /// assert_eq!(t.to_rfc3339_seconds(), "2024-05-01T10:00:05Z");
    /// assert_eq!(t.to_rfc3339_micros(), "2024-05-01T10:00:05.500000Z");
    /// ```
    pub fn parse_rfc3339(text: &str) -> Result<Self, TimeError> {
        parse(text.as_bytes()).ok_or(TimeError)
    }
}

/// Issues instants that never repeat, as a real clock's readings do not: a
/// reading equal to the previous one, or between it and the last instant
/// issued for it, is issued 1 ns after that instant, so names made from
/// instants stay unique.
///
/// ```
/// use hush_core::model::time::{Timestamp, UniqueInstants};
/// let mut clock = UniqueInstants::default();
/// let t = Timestamp::from_secs(10);
/// assert_eq!(clock.issue(t), t);
/// assert_eq!(clock.issue(t), t.plus_nanos(1));
/// assert_eq!(clock.issue(t), t.plus_nanos(2));
/// // t + 1 ns was issued already: the reading is moved past it.
/// assert_eq!(clock.issue(t.plus_nanos(1)), t.plus_nanos(3));
/// assert_eq!(clock.issue(Timestamp::from_secs(11)), Timestamp::from_secs(11));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UniqueInstants {
    /// The last reading and the instant issued for it.
    last: Option<(Timestamp, Timestamp)>,
}

impl UniqueInstants {
    /// The instant to use for a clock reading of `read`.
    pub fn issue(&mut self, read: Timestamp) -> Timestamp {
        let now = match self.last {
            Some((last_read, issued)) if last_read <= read && read <= issued => {
                issued.plus_nanos(1)
            }
            _ => read,
        };
        self.last = Some((read, now));
        now
    }
}

/// A timestamp that is not RFC 3339 or is out of the representable range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeError;

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not an RFC 3339 timestamp between the years 1678 and 2261")
    }
}

impl core::error::Error for TimeError {}

/// A [`Display`](fmt::Display) adapter writing a timestamp in RFC 3339 UTC.
#[derive(Clone, Copy, Debug)]
pub struct Rfc3339 {
    at: Timestamp,
    precision: Precision,
}

#[derive(Clone, Copy, Debug)]
enum Precision {
    Seconds,
    Micros,
    Nanos,
}

impl Rfc3339 {
    /// Whole seconds (`metav1.Time`).
    pub const fn seconds(at: Timestamp) -> Self {
        Rfc3339 {
            at,
            precision: Precision::Seconds,
        }
    }
    /// Six fractional digits (`metav1.MicroTime`).
    pub const fn micros(at: Timestamp) -> Self {
        Rfc3339 {
            at,
            precision: Precision::Micros,
        }
    }
    /// Up to nine fractional digits, trailing zeros trimmed.
    pub const fn nanos(at: Timestamp) -> Self {
        Rfc3339 {
            at,
            precision: Precision::Nanos,
        }
    }
}

impl Rfc3339 {
    /// Appends the text to `out`.
    pub fn push_to(self, out: &mut String) {
        out.push_str(self.render(&mut [0; 30]));
    }

    /// The text, written digit by digit into `buf` (no `fmt`: the component
    /// formats a timestamp for every patch it sends).
    fn render(self, buf: &mut [u8; 30]) -> &str {
        let secs = self.at.0.div_euclid(NANOS_PER_SECOND);
        let frac = self.at.0.rem_euclid(NANOS_PER_SECOND) as u64;
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400) as u64;
        let (y, m, d) = civil_from_days(days);
        // An i64 of nanoseconds spans the years 1677 to 2262: four digits.
        put_digits(&mut buf[0..4], y as u64);
        put_digits(&mut buf[5..7], u64::from(m));
        put_digits(&mut buf[8..10], u64::from(d));
        put_digits(&mut buf[11..13], rem / 3600);
        put_digits(&mut buf[14..16], rem / 60 % 60);
        put_digits(&mut buf[17..19], rem % 60);
        buf[4] = b'-';
        buf[7] = b'-';
        buf[10] = b'T';
        buf[13] = b':';
        buf[16] = b':';
        let mut end = 19;
        let fraction = match self.precision {
            Precision::Seconds => None,
            Precision::Micros => Some((frac / 1_000, 6)),
            Precision::Nanos if frac != 0 => {
                let (mut v, mut digits) = (frac, 9);
                while v % 10 == 0 {
                    v /= 10;
                    digits -= 1;
                }
                Some((v, digits))
            }
            Precision::Nanos => None,
        };
        if let Some((v, digits)) = fraction {
            buf[19] = b'.';
            put_digits(&mut buf[20..20 + digits], v);
            end = 20 + digits;
        }
        buf[end] = b'Z';
        core::str::from_utf8(&buf[..=end]).unwrap_or_default()
    }
}

/// Writes the last `out.len()` decimal digits of `v` into `out`, zero-padded.
fn put_digits(out: &mut [u8], mut v: u64) {
    for d in out.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render(&mut [0; 30]))
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
const fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// (year, month, day) to days since 1970-01-01, proleptic Gregorian.
const fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * if m > 2 { m - 3 } else { m + 9 } + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

const fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn digits(b: &[u8]) -> Option<i64> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0i64, |acc, c| acc * 10 + i64::from(c - b'0')))
}

fn parse(b: &[u8]) -> Option<Timestamp> {
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = u32::try_from(digits(&b[5..7])?).ok()?;
    let day = u32::try_from(digits(&b[8..10])?).ok()?;
    let hour = digits(&b[11..13])?;
    let minute = digits(&b[14..16])?;
    let second = digits(&b[17..19])?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut rest = &b[19..];
    let mut nanos = 0i64;
    if let [b'.', tail @ ..] = rest {
        let n = tail.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        for (i, c) in tail[..n].iter().enumerate() {
            if i < 9 {
                nanos = nanos * 10 + i64::from(c - b'0');
            }
        }
        for _ in n..9 {
            nanos *= 10;
        }
        rest = &tail[n..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let h = digits(&[*h1, *h2])?;
            let m = digits(&[*m1, *m2])?;
            if h > 23 || m > 59 {
                return None;
            }
            let off = h * 3600 + m * 60;
            if *sign == b'-' { -off } else { off }
        }
        _ => return None,
    };
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    let total = i128::from(secs) * i128::from(NANOS_PER_SECOND) + i128::from(nanos);
    i64::try_from(total).ok().map(Timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_kubernetes_forms() {
        let t = Timestamp::from_nanos(1_714_557_605_123_456_789);
        assert_eq!(t.to_rfc3339_seconds(), "2024-05-01T10:00:05Z");
        assert_eq!(t.to_rfc3339_micros(), "2024-05-01T10:00:05.123456Z");
        assert_eq!(t.to_rfc3339_nanos(), "2024-05-01T10:00:05.123456789Z");
        assert_eq!(
            Timestamp::EPOCH.to_rfc3339_seconds(),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(
            Timestamp::from_nanos(-1).to_rfc3339_seconds(),
            "1969-12-31T23:59:59Z"
        );
        assert_eq!(
            Timestamp::from_secs(1).to_rfc3339_nanos(),
            "1970-01-01T00:00:01Z"
        );
        assert_eq!(
            Timestamp::from_nanos(1_500_000_000).to_rfc3339_nanos(),
            "1970-01-01T00:00:01.5Z"
        );
        assert_eq!(
            Timestamp::from_nanos(i64::MIN).to_rfc3339_nanos(),
            "1677-09-21T00:12:43.145224192Z"
        );
        assert_eq!(
            Timestamp::from_nanos(i64::MAX).to_rfc3339_micros(),
            "2262-04-11T23:47:16.854775Z"
        );
    }

    #[test]
    fn parses_what_go_accepts() {
        let p = |s| Timestamp::parse_rfc3339(s);
        assert_eq!(p("1970-01-01T00:00:00Z"), Ok(Timestamp::EPOCH));
        assert_eq!(
            p("2024-02-29T23:59:59.999999999Z").unwrap().nanos() % NANOS_PER_SECOND,
            999_999_999
        );
        assert_eq!(p("2024-05-01T12:00:05+02:00"), p("2024-05-01T10:00:05Z"));
        assert_eq!(
            p("2024-05-01T10:00:05.1234567891Z").unwrap().nanos() % 1000,
            789
        );
        for bad in [
            "",
            "2024-05-01",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T10:00:05",
            "2024-05-01T10:00:05.Z",
            "2024-05-01 10:00:05Z",
            "9999-01-01T00:00:00Z",
        ] {
            assert_eq!(p(bad), Err(TimeError), "{bad}");
        }
    }

    #[test]
    fn round_trips_across_the_range() {
        let mut t = i64::MIN / 2;
        while t < i64::MAX / 2 {
            let ts = Timestamp::from_nanos(t);
            assert_eq!(Timestamp::parse_rfc3339(&ts.to_rfc3339_nanos()), Ok(ts));
            t += 7_777_777_777_777_777;
        }
    }

    #[test]
    fn instants_issued_never_repeat_when_a_reading_catches_up() {
        // Readings t, t, t + 1 ns: the second is issued at t + 1 ns, so the
        // third must not be issued there again.
        let mut clock = UniqueInstants::default();
        let t = Timestamp::from_secs(1_714_557_600);
        let issued =
            [t, t, t.plus_nanos(1), t.plus_nanos(1), t.plus_nanos(5)].map(|read| clock.issue(read));
        let want = [0, 1, 2, 3, 5].map(|n| t.plus_nanos(n));
        assert_eq!(issued, want);
    }

    #[test]
    fn truncation_goes_to_the_past() {
        assert_eq!(
            Timestamp::from_nanos(1_999_999_999).truncate_to_second(),
            Timestamp::from_secs(1)
        );
        assert_eq!(
            Timestamp::from_nanos(-1).truncate_to_second(),
            Timestamp::from_secs(-1)
        );
    }
}
