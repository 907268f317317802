//! The CSV dialect kube-apiserver reads its token file with: Go's
//! `encoding/csv` with a variable number of fields, no comment character,
//! no lazy quotes and no trimming. The `csv` crate is more lenient (a bare
//! `"` in an unquoted field, text after a closing quote), and the API
//! server refuses those files, so this small reader follows Go's rules.

/// A CSV syntax error, worded as Go's `csv.ParseError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line the record started on (1-based).
    pub start_line: usize,
    /// The line the error is on.
    pub line: usize,
    /// The byte column (1-based).
    pub column: usize,
    /// What is wrong.
    pub message: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start_line != self.line {
            write!(
                f,
                "record on line {}: parse error on line {}, column {}: {}",
                self.start_line, self.line, self.column, self.message
            )
        } else {
            write!(
                f,
                "parse error on line {}, column {}: {}",
                self.line, self.column, self.message
            )
        }
    }
}

const BARE_QUOTE: &str = "bare \" in non-quoted-field";
const QUOTE: &str = "extraneous or missing \" in quoted-field";

/// Splits `data` into lines as Go's reader does: each ends with `\n`
/// (added to a last line without one), `\r\n` becomes `\n`, and a `\r`
/// just before the end of the input is dropped.
fn lines(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (mut line, tail) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest[..=i].to_vec(), &rest[i + 1..]),
            None => {
                let mut line = rest.to_vec();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                line.push(b'\n');
                (line, &rest[rest.len()..])
            }
        };
        let n = line.len();
        if n >= 2 && line[n - 2] == b'\r' {
            line.truncate(n - 2);
            line.push(b'\n');
        }
        out.push(line);
        rest = tail;
    }
    out
}

/// Reads every record of `data`. Empty lines are skipped; a line that is
/// only spaces is a record of one field.
pub fn records(data: &[u8]) -> Result<Vec<Vec<String>>, ParseError> {
    let lines = lines(data);
    let mut records = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index] == b"\n" {
            index += 1;
            continue;
        }
        let start_line = index + 1;
        let mut fields = Vec::new();
        let mut line: &[u8] = &lines[index];
        let mut line_start = 0usize; // bytes of the current line already consumed
        'fields: loop {
            if line.first() != Some(&b'"') {
                // An unquoted field runs to the next comma or the line's end.
                let end = line.iter().position(|&b| b == b',');
                let field = match end {
                    Some(i) => &line[..i],
                    None => &line[..line.len() - 1],
                };
                if let Some(j) = field.iter().position(|&b| b == b'"') {
                    return Err(ParseError {
                        start_line,
                        line: index + 1,
                        column: line_start + j + 1,
                        message: BARE_QUOTE,
                    });
                }
                fields.push(String::from_utf8_lossy(field).into_owned());
                match end {
                    Some(i) => {
                        line = &line[i + 1..];
                        line_start += i + 1;
                    }
                    None => break 'fields,
                }
            } else {
                // A quoted field: `""` is a quote; it may span lines.
                let mut field = Vec::new();
                line = &line[1..];
                line_start += 1;
                loop {
                    match line.iter().position(|&b| b == b'"') {
                        Some(i) => {
                            field.extend_from_slice(&line[..i]);
                            line = &line[i + 1..];
                            line_start += i + 1;
                            match line.first() {
                                Some(b'"') => {
                                    field.push(b'"');
                                    line = &line[1..];
                                    line_start += 1;
                                }
                                Some(b',') => {
                                    line = &line[1..];
                                    line_start += 1;
                                    fields.push(String::from_utf8_lossy(&field).into_owned());
                                    continue 'fields;
                                }
                                Some(b'\n') | None => {
                                    fields.push(String::from_utf8_lossy(&field).into_owned());
                                    break 'fields;
                                }
                                Some(_) => {
                                    return Err(ParseError {
                                        start_line,
                                        line: index + 1,
                                        column: line_start,
                                        message: QUOTE,
                                    });
                                }
                            }
                        }
                        None if index + 1 < lines.len() => {
                            // The field goes on in the next line.
                            field.extend_from_slice(line);
                            index += 1;
                            line = &lines[index];
                            line_start = 0;
                        }
                        None => {
                            return Err(ParseError {
                                start_line,
                                line: index + 1,
                                column: line_start + line.len() + 1,
                                message: QUOTE,
                            });
                        }
                    }
                }
            }
        }
        records.push(fields);
        index += 1;
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Vec<String>>, String> {
        records(text.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn quoted_fields_hold_commas_quotes_and_newlines() {
        assert_eq!(
            read("t1,alice,1001,\"dev,ops\"\r\nt2,bob,1002\n").unwrap(),
            [
                vec!["t1", "alice", "1001", "dev,ops"],
                vec!["t2", "bob", "1002"]
            ]
        );
        assert_eq!(
            read("a,\"say \"\"hi\"\"\",c").unwrap(),
            [["a", "say \"hi\"", "c"]]
        );
        assert_eq!(
            read("a,\"two\nlines\",c\n").unwrap(),
            [["a", "two\nlines", "c"]]
        );
        assert_eq!(read("a,b,\"\"\n").unwrap(), [["a", "b", ""]]);
    }

    #[test]
    fn blank_lines_are_skipped_and_spaces_kept() {
        assert_eq!(read("\n\na, b ,c\n\n").unwrap(), [vec!["a", " b ", "c"]]);
        assert_eq!(read("   \n").unwrap(), [vec!["   "]]);
        assert_eq!(
            read("# a comment,x,y\n").unwrap(),
            [vec!["# a comment", "x", "y"]]
        );
    }

    #[test]
    fn go_refuses_what_go_refuses() {
        assert_eq!(
            read("a,b\"c,d\n").unwrap_err(),
            "parse error on line 1, column 4: bare \" in non-quoted-field"
        );
        assert_eq!(
            read("a,\"b\"c,d\n").unwrap_err(),
            "parse error on line 1, column 5: extraneous or missing \" in quoted-field"
        );
        assert_eq!(
            read("ok,x,y\na,\"open\n").unwrap_err(),
            "parse error on line 2, column 9: extraneous or missing \" in quoted-field"
        );
    }
}
