//! The numbers of proxy-wasm ABI 0.2.1 (its "Types" section), and the
//! serialization of header maps.

/// `proxy_status_t`.
pub mod status {
    /// Success.
    pub const OK: i32 = 0;
    /// The requested key, buffer, metric, queue or context was not found.
    pub const NOT_FOUND: i32 = 1;
    /// An argument the host does not know (a buffer or map type, a context).
    pub const BAD_ARGUMENT: i32 = 2;
    /// An upstream name the host does not know (gRPC).
    pub const PARSE_FAILURE: i32 = 4;
    /// A pointer and size outside the guest's memory.
    pub const INVALID_MEMORY_ACCESS: i32 = 6;
    /// A shared queue with nothing to dequeue.
    pub const EMPTY: i32 = 7;
    /// A shared-data write whose compare-and-swap value is stale.
    pub const CAS_MISMATCH: i32 = 8;
    /// The host could not do what was asked (e.g. send a call).
    pub const INTERNAL_FAILURE: i32 = 10;
    /// The host does not support what was asked (e.g. a TCP stream).
    pub const UNIMPLEMENTED: i32 = 12;
}

/// `proxy_action_t`.
pub mod action {
    /// Go on with the stream.
    pub const CONTINUE: i32 = 0;
    /// Hold the stream.
    pub const PAUSE: i32 = 1;
}

/// `proxy_buffer_type_t`.
pub mod buffer {
    /// The request body (in `proxy_on_request_body`).
    pub const HTTP_REQUEST_BODY: i32 = 0;
    /// The response body (in `proxy_on_response_body`).
    pub const HTTP_RESPONSE_BODY: i32 = 1;
    /// The body of a call's answer (in `proxy_on_http_call_response`).
    pub const HTTP_CALL_RESPONSE_BODY: i32 = 4;
    /// The VM configuration (in `proxy_on_vm_start`).
    pub const VM_CONFIGURATION: i32 = 6;
    /// The plugin configuration (in `proxy_on_configure`).
    pub const PLUGIN_CONFIGURATION: i32 = 7;
    /// The highest type number of the ABI.
    pub const LAST: i32 = 8;
}

/// `proxy_map_type_t`.
pub mod map {
    /// Request headers.
    pub const HTTP_REQUEST_HEADERS: i32 = 0;
    /// Request trailers.
    pub const HTTP_REQUEST_TRAILERS: i32 = 1;
    /// Response headers.
    pub const HTTP_RESPONSE_HEADERS: i32 = 2;
    /// Response trailers.
    pub const HTTP_RESPONSE_TRAILERS: i32 = 3;
    /// A call's answer's headers.
    pub const HTTP_CALL_RESPONSE_HEADERS: i32 = 6;
    /// A call's answer's trailers.
    pub const HTTP_CALL_RESPONSE_TRAILERS: i32 = 7;
    /// The highest type number of the ABI.
    pub const LAST: i32 = 7;
}

/// `proxy_stream_type_t`.
pub mod stream {
    /// The HTTP request.
    pub const HTTP_REQUEST: i32 = 0;
    /// The HTTP response.
    pub const HTTP_RESPONSE: i32 = 1;
    /// The highest type number of the ABI.
    pub const LAST: i32 = 3;
}

/// `proxy_log_level_t`: `TRACE` (0) to `CRITICAL` (5).
pub const LOG_LEVEL_LAST: i32 = 5;

/// `proxy_metric_type_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricKind {
    /// Only goes up.
    Counter,
    /// Set and changed freely.
    Gauge,
    /// Records values.
    Histogram,
}

impl MetricKind {
    /// The kind numbered `n`, if the ABI has one.
    pub fn of(n: i32) -> Option<MetricKind> {
        match n {
            0 => Some(MetricKind::Counter),
            1 => Some(MetricKind::Gauge),
            2 => Some(MetricKind::Histogram),
            _ => None,
        }
    }
}

/// Header pairs as the ABI serializes them: the number of pairs, each
/// key's and value's length, then each key and value followed by a NUL,
/// all integers 32-bit little-endian.
pub fn serialize_map(pairs: &[(String, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(pairs.len() as u32).to_le_bytes());
    for (k, v) in pairs {
        out.extend_from_slice(&(k.len() as u32).to_le_bytes());
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
    }
    for (k, v) in pairs {
        out.extend_from_slice(k.as_bytes());
        out.push(0);
        out.extend_from_slice(v.as_bytes());
        out.push(0);
    }
    out
}

/// The pairs of a serialized map; an empty input (or a lone NUL) is an
/// empty map. None when the bytes are not a map.
pub fn deserialize_map(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    if bytes.is_empty() || bytes == [0] {
        return Some(Vec::new());
    }
    let word = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = word(0)?;
    let mut sizes = Vec::with_capacity(count.min(1024));
    for i in 0..count {
        sizes.push((word(4 + 8 * i)?, word(8 + 8 * i)?));
    }
    let mut at = 4 + 8 * count;
    let mut take = |len: usize| -> Option<String> {
        let text = std::str::from_utf8(bytes.get(at..at + len)?)
            .ok()?
            .to_string();
        (bytes.get(at + len) == Some(&0)).then_some(())?;
        at += len + 1;
        Some(text)
    };
    sizes
        .into_iter()
        .map(|(k, v)| Some((take(k)?, take(v)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example_round_trips() {
        let pairs = vec![
            ("a".to_string(), "1".to_string()),
            ("b".to_string(), "22".to_string()),
        ];
        let bytes = serialize_map(&pairs);
        // {{"a": "1"}, {"b": "22"}} in the spec: 2, then 1 1 1 2, then the NUL-terminated texts.
        let mut want = Vec::new();
        for n in [2u32, 1, 1, 1, 2] {
            want.extend_from_slice(&n.to_le_bytes());
        }
        want.extend_from_slice(b"a\x001\x00b\x0022\x00");
        assert_eq!(bytes, want);
        assert_eq!(deserialize_map(&bytes), Some(pairs));
    }

    #[test]
    fn empty_and_broken_maps() {
        assert_eq!(deserialize_map(b""), Some(vec![]));
        assert_eq!(deserialize_map(b"\0"), Some(vec![]));
        assert_eq!(deserialize_map(&[1, 0, 0, 0, 5, 0, 0, 0]), None);
        let mut no_nul = serialize_map(&[("k".into(), "v".into())]);
        no_nul.pop();
        assert_eq!(deserialize_map(&no_nul), None);
    }
}
