//! Ages as kubectl and the API server's Tables print them.

/// apimachinery's `duration.HumanDuration`: `45s`, `5m14s`, `3h`, `2d4h`, …
pub fn human_duration(nanos: i64) -> String {
    let seconds = nanos / 1_000_000_000;
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    const S: i64 = 1_000_000_000;

    #[test]
    fn durations_read_as_kubectl_prints_them() {
        let cases = [
            (-3 * S, "<invalid>"),
            (-S / 2, "0s"),
            (-S - S / 2, "0s"),
            (44 * S, "44s"),
            (119 * S, "119s"),
            (120 * S, "2m"),
            (314 * S, "5m14s"),
            (600 * S, "10m"),
            (179 * 60 * S, "179m"),
            (3 * 3600 * S, "3h"),
            (7 * 3600 * S + 59 * 60 * S, "7h59m"),
            (47 * 3600 * S, "47h"),
            (52 * 3600 * S, "2d4h"),
            (48 * 3600 * S, "2d"),
            (400 * 24 * 3600 * S, "400d"),
            ((3 * 365 + 5) * 24 * 3600 * S, "3y5d"),
            (9 * 365 * 24 * 3600 * S, "9y"),
        ];
        for (nanos, want) in cases {
            assert_eq!(human_duration(nanos), want, "{nanos}");
        }
    }
}
