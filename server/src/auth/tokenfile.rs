//! `--token-auth-file`: static bearer tokens in kube-apiserver's CSV
//! format (`token,user,uid[,"group1,group2"]`), read once at start, and
//! the `Authorization: Bearer` header read as kube-apiserver reads it.

use std::collections::HashMap;
use std::path::Path;

use super::csv;
use super::user::UserInfo;

/// The tokens of a token file.
#[derive(Debug, Clone, Default)]
pub struct TokenFile {
    tokens: HashMap<String, UserInfo>,
    /// The first row's token (it goes into a written kubeconfig).
    first: Option<String>,
    /// What the API server would have logged as warnings while reading.
    pub warnings: Vec<String>,
}

/// What the `Authorization` header says about bearer tokens.
#[derive(Debug, PartialEq, Eq)]
pub enum Bearer<'a> {
    /// No bearer token (no header, another scheme, or an empty token).
    None,
    /// `Bearer  token` (two spaces): ignored, with this warning.
    ExtraSpace,
    /// A token to check.
    Token(&'a str),
}

/// The warning for a bearer token after two spaces.
pub const EXTRA_SPACE_WARNING: &str = "the provided Authorization header contains extra space before the bearer token, and is ignored";

/// Reads an `Authorization` header as kube-apiserver's bearer token
/// authenticator: trimmed, split on single spaces into at most three
/// parts, scheme `bearer` in any case, the token is the second part.
pub fn bearer(header: &str) -> Bearer<'_> {
    let header = header.trim_matches(|c: char| c.is_ascii_whitespace());
    if header.is_empty() {
        return Bearer::None;
    }
    let mut parts = header.splitn(3, ' ');
    let scheme = parts.next().unwrap_or("");
    let Some(token) = parts.next() else {
        return Bearer::None;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Bearer::None;
    }
    if token.is_empty() {
        return if parts.next().is_some() {
            Bearer::ExtraSpace
        } else {
            Bearer::None
        };
    }
    Bearer::Token(token)
}

impl TokenFile {
    /// Reads `path`; a row with fewer than three columns or a CSV error
    /// stops the start, as in kube-apiserver.
    pub fn read(path: &Path) -> Result<TokenFile, String> {
        let data = std::fs::read(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        TokenFile::parse(&data, &path.display().to_string())
    }

    /// Parses a token file's contents; `name` is its path, for messages.
    pub fn parse(data: &[u8], name: &str) -> Result<TokenFile, String> {
        let rows = csv::records(data).map_err(|e| format!("token file '{name}': {e}"))?;
        let mut file = TokenFile::default();
        let mut record = 0;
        for row in rows {
            if row.len() < 3 {
                return Err(format!(
                    "token file '{name}' must have at least 3 columns (token, user name, user uid), found {}",
                    row.len()
                ));
            }
            record += 1;
            if row[0].is_empty() {
                file.warnings.push(format!(
                    "empty token has been found in token file '{name}', record number '{record}'"
                ));
                continue;
            }
            let user = UserInfo {
                name: row[1].clone(),
                uid: row[2].clone(),
                groups: match row.get(3) {
                    Some(groups) => groups.split(',').map(str::to_string).collect(),
                    None => Vec::new(),
                },
                extra: Default::default(),
            };
            if file.tokens.contains_key(&row[0]) {
                file.warnings.push(format!(
                    "duplicate token has been found in token file '{name}', record number '{record}'"
                ));
            }
            if file.first.is_none() {
                file.first = Some(row[0].clone());
            }
            // The last row of a duplicated token wins.
            file.tokens.insert(row[0].clone(), user);
        }
        Ok(file)
    }

    /// The user a token belongs to (before `system:authenticated` is added).
    pub fn user(&self, token: &str) -> Option<&UserInfo> {
        self.tokens.get(token)
    }

    /// The first row's token and the user it authenticates (the last
    /// row with that token).
    pub fn first(&self) -> Option<(&str, &str)> {
        let token = self.first.as_deref()?;
        Some((self.tokens.get(token)?.name.as_str(), token))
    }

    /// How many tokens there are.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the file holds no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TokenFile, String> {
        TokenFile::parse(text.as_bytes(), "/etc/tokens.csv")
    }

    #[test]
    fn rows_become_users_with_split_groups() {
        let file =
            parse("s3cr3t,alice,1001,\"dev, ops\"\nt2,bob,1002\nt3,carol,1003,\"\"\n").unwrap();
        let alice = file.user("s3cr3t").unwrap();
        assert_eq!((alice.name.as_str(), alice.uid.as_str()), ("alice", "1001"));
        assert_eq!(alice.groups, ["dev", " ops"]);
        assert!(file.user("t2").unwrap().groups.is_empty());
        assert_eq!(file.user("t3").unwrap().groups, [""]);
        assert_eq!(file.first(), Some(("alice", "s3cr3t")));
        assert!(file.user("nope").is_none());
    }

    #[test]
    fn short_rows_are_fatal_and_comment_lines_are_data() {
        assert_eq!(
            parse("# tokens for the team\n").unwrap_err(),
            "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 1"
        );
        let file = parse("#t,alice,1\n").unwrap();
        assert_eq!(file.user("#t").unwrap().name, "alice");
        assert!(parse("t,a\"b,1\n").unwrap_err().contains("bare \""));
    }

    #[test]
    fn empty_tokens_are_skipped_and_the_last_duplicate_wins() {
        let file = parse(",nobody,0\nt,alice,1\nt,bob,2\n").unwrap();
        assert_eq!(file.user("t").unwrap().name, "bob");
        assert_eq!(file.len(), 1);
        assert_eq!(
            file.warnings,
            [
                "empty token has been found in token file '/etc/tokens.csv', record number '1'",
                "duplicate token has been found in token file '/etc/tokens.csv', record number '3'"
            ]
        );
    }

    #[test]
    fn the_header_is_read_as_the_api_server_reads_it() {
        assert_eq!(bearer("Bearer abc"), Bearer::Token("abc"));
        assert_eq!(bearer("bEaReR abc"), Bearer::Token("abc"));
        assert_eq!(bearer("  Bearer abc  "), Bearer::Token("abc"));
        assert_eq!(bearer("Bearer abc def"), Bearer::Token("abc"));
        assert_eq!(bearer("Bearer  abc"), Bearer::ExtraSpace);
        assert_eq!(bearer("Bearer"), Bearer::None);
        assert_eq!(bearer("Basic YWxpY2U6cHc="), Bearer::None);
        assert_eq!(bearer(""), Bearer::None);
    }
}
