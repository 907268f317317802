//! Bytes carried in a string, one character per byte (U+0000 to U+00FF,
//! as ISO-8859-1 maps them): how the `replay` interface moves hush's wire
//! format, because component bindings copy a string in one piece where
//! some (wasmtime-py) convert a `list<u8>` element by element.

/// The bytes `text` carries, or why it carries none (a character above
/// U+00FF).
pub(crate) fn to_bytes(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some(high) = rest.iter().position(|&b| b >= 0x80) {
        out.extend_from_slice(&rest[..high]);
        // U+0080 to U+00FF are the two-byte sequences led by 0xC2 and 0xC3;
        // `text` is valid UTF-8, so a continuation byte follows.
        match (rest[high], rest.get(high + 1)) {
            (lead @ (0xc2 | 0xc3), Some(&next)) => {
                out.push(((lead & 0x03) << 6) | (next & 0x3f));
                rest = &rest[high + 2..];
            }
            _ => {
                let at = text.len() - rest.len() + high;
                let c = text[at..].chars().next().unwrap_or_default();
                return Err(format!(
                    "byte {}: {c:?} (U+{:04X}) carries no byte: the batch's characters are U+0000 to U+00FF",
                    out.len(),
                    u32::from(c)
                ));
            }
        }
    }
    out.extend_from_slice(rest);
    Ok(out)
}

/// `parts`, one after the other, carried in a string.
pub(crate) fn from_bytes(parts: &[&[u8]]) -> String {
    let len = parts.iter().map(|p| p.len()).sum::<usize>();
    let mut out = Vec::with_capacity(len + len / 8);
    for part in parts {
        let mut rest = *part;
        // Runs of ASCII go over as they are; a byte from 0x80 up becomes
        // its character's two UTF-8 bytes.
        while let Some(high) = rest.iter().position(|&b| b >= 0x80) {
            out.extend_from_slice(&rest[..high]);
            let b = rest[high];
            out.extend_from_slice(&[0xc0 | (b >> 6), 0x80 | (b & 0x3f)]);
            rest = &rest[high + 1..];
        }
        out.extend_from_slice(rest);
    }
    // Valid by construction; the check is a fast pass over the bytes.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_survives_the_round_trip() {
        let all: Vec<u8> = (0..=255).collect();
        let text = from_bytes(&[&all[..100], &all[100..]]);
        assert_eq!(text.chars().count(), 256);
        assert_eq!(text.len(), 128 + 2 * 128);
        assert_eq!(to_bytes(&text).unwrap(), all);
    }

    #[test]
    fn a_character_above_u_00ff_is_an_error() {
        let err = to_bytes("ab\u{0100}c").unwrap_err();
        assert!(
            err.starts_with("byte 2: 'Ā' (U+0100) carries no byte"),
            "{err}"
        );
        assert!(to_bytes("€").is_err());
        assert_eq!(to_bytes("").unwrap(), Vec::<u8>::new());
    }
}
