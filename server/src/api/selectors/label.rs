//! Label selectors, with the whole set-based grammar.

use std::collections::BTreeMap;

use hush_core::model::validate::is_qualified_name;

use super::super::status::ApiError;

/// A parsed label selector: every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Not,
    Equals,
    NotEquals,
    Open,
    Close,
    Comma,
    Greater,
    Less,
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            ' ' | '\t' => {
                chars.next();
            }
            '(' | ')' | ',' | '>' | '<' => {
                chars.next();
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    ',' => Token::Comma,
                    '>' => Token::Greater,
                    _ => Token::Less,
                });
            }
            '=' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                }
                out.push(Token::Equals);
            }
            '!' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                    out.push(Token::NotEquals);
                } else {
                    out.push(Token::Not);
                }
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if " \t(),=!<>".contains(c) {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                out.push(Token::Word(word));
            }
        }
    }
    Ok(out)
}

fn label_value(v: &str) -> Result<String, String> {
    let b = v.as_bytes();
    let ok = b.is_empty()
        || (b.len() <= 63
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c)));
    if ok {
        Ok(v.into())
    } else {
        Err(format!("invalid label value: {v:?}"))
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn key(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Token::Word(k)) if is_qualified_name(&k) => Ok(k),
            Some(Token::Word(k)) => Err(format!("invalid label key {k:?}")),
            other => Err(format!("expected a label key, found {other:?}")),
        }
    }

    fn value(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Token::Word(_)) => match self.next() {
                Some(Token::Word(v)) => label_value(&v),
                _ => unreachable!(),
            },
            // `key=` selects an empty value.
            None | Some(Token::Comma) => Ok(String::new()),
            other => Err(format!("expected a value, found {other:?}")),
        }
    }

    fn set(&mut self) -> Result<Vec<String>, String> {
        if self.next() != Some(Token::Open) {
            return Err("expected '(' after in/notin".into());
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Some(Token::Close) => return Ok(values),
                Some(Token::Word(v)) => values.push(label_value(&v)?),
                Some(Token::Comma) => {}
                other => return Err(format!("unexpected {other:?} in a set")),
            }
        }
    }

    fn number(&mut self) -> Result<i64, String> {
        match self.next() {
            Some(Token::Word(v)) => v.parse().map_err(|_| format!("{v:?} is not an integer")),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        if self.peek() == Some(&Token::Not) {
            self.next();
            return Ok(Requirement::NotExists(self.key()?));
        }
        let key = self.key()?;
        match self.peek() {
            None | Some(Token::Comma) => Ok(Requirement::Exists(key)),
            Some(Token::Equals) => {
                self.next();
                Ok(Requirement::In(key, vec![self.value()?]))
            }
            Some(Token::NotEquals) => {
                self.next();
                Ok(Requirement::NotIn(key, vec![self.value()?]))
            }
            Some(Token::Greater) => {
                self.next();
                Ok(Requirement::Greater(key, self.number()?))
            }
            Some(Token::Less) => {
                self.next();
                Ok(Requirement::Less(key, self.number()?))
            }
            Some(Token::Word(w)) if w == "in" => {
                self.next();
                Ok(Requirement::In(key, self.set()?))
            }
            Some(Token::Word(w)) if w == "notin" => {
                self.next();
                Ok(Requirement::NotIn(key, self.set()?))
            }
            Some(other) => Err(format!("unexpected {other:?} after {key:?}")),
        }
    }
}

impl LabelSelector {
    /// Parses `text`; a malformed selector is a 400.
    pub fn parse(text: &str) -> Result<LabelSelector, ApiError> {
        let bad = |problem: String| {
            ApiError::bad_request(format!("unable to parse requirement: {problem}"))
        };
        let mut parser = Parser {
            tokens: tokens(text).map_err(bad)?,
            at: 0,
        };
        let mut requirements = Vec::new();
        while parser.peek().is_some() {
            requirements.push(parser.requirement().map_err(bad)?);
            match parser.next() {
                None | Some(Token::Comma) => {}
                Some(other) => return Err(bad(format!("expected ',' found {other:?}"))),
            }
        }
        Ok(LabelSelector { requirements })
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let number = |k: &String| labels.get(k).and_then(|v| v.parse::<i64>().ok());
        self.requirements.iter().all(|r| match r {
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::NotExists(k) => !labels.contains_key(k),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Greater(k, n) => number(k).is_some_and(|v| v > *n),
            Requirement::Less(k, n) => number(k).is_some_and(|v| v < *n),
        })
    }

    /// Whether it selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// One label requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Greater(String, i64),
    Less(String, i64),
}
