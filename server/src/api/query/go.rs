//! Query values read as the API server's parameter codec reads them: its
//! boolean conversion, and Go's `strconv` number parsing with Go's error
//! text, which the API server puts in its 400 answers.

/// A boolean parameter as the API server's codec reads it
/// (`Convert_Slice_string_To_bool`): `0` and `false` in any case are
/// false; anything else, even an empty value, is true. A parameter that is
/// absent is false, which is the caller's default.
///
/// ```
/// use hush_server::api::query::query_bool;
/// assert!(query_bool("true") && query_bool("yes") && query_bool(""));
/// assert!(!query_bool("0") && !query_bool("FALSE"));
/// ```
pub fn query_bool(value: &str) -> bool {
    value != "0" && !value.eq_ignore_ascii_case("false")
}

/// Go's `strconv.ParseInt(value, 10, 64)`: an optional sign, then decimal
/// digits; the error is Go's text.
pub(crate) fn parse_int(value: &str) -> Result<i64, String> {
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseInt: parsing {value:?}: invalid syntax"
        ));
    }
    value
        .parse()
        .map_err(|_| format!("strconv.ParseInt: parsing {value:?}: value out of range"))
}

/// Go's `strconv.ParseUint(value, 10, 64)`: decimal digits only (no
/// sign); the error is Go's text.
pub(crate) fn parse_uint(value: &str) -> Result<u64, String> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseUint: parsing {value:?}: invalid syntax"
        ));
    }
    value
        .parse()
        .map_err(|_| format!("strconv.ParseUint: parsing {value:?}: value out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_as_go_does_with_its_errors() {
        assert_eq!(parse_int("+7"), Ok(7));
        assert_eq!(parse_int("-7"), Ok(-7));
        assert_eq!(
            parse_int("7s").unwrap_err(),
            "strconv.ParseInt: parsing \"7s\": invalid syntax"
        );
        assert_eq!(
            parse_int("9223372036854775808").unwrap_err(),
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"
        );
        assert!(parse_int("").is_err() && parse_int("-").is_err());
        assert_eq!(parse_uint("18446744073709551615"), Ok(u64::MAX));
        // Rust's own parser takes a leading `+`; Go's ParseUint does not.
        assert_eq!(
            parse_uint("+1").unwrap_err(),
            "strconv.ParseUint: parsing \"+1\": invalid syntax"
        );
        assert_eq!(
            parse_uint("18446744073709551616").unwrap_err(),
            "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"
        );
    }
}
