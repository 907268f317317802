//! The order people expect names in, as the dashboard's
//! `Intl.Collator("en", { numeric: true })` sorted them before the sorting
//! moved here: runs of digits compare as numbers (`web-2` before `web-10`),
//! letters without regard to case first (`alpha` before `Beta`), spaces
//! before punctuation before digits before letters; ties go to lower case
//! first, then to the code points. Kubernetes names, kinds and namespaces
//! sort exactly as the collator sorts them; free text may differ from it in
//! the order of punctuation marks.

use core::cmp::Ordering;
use core::iter::Peekable;
use core::str::Chars;

/// Where a character sorts among the others, before its own value.
fn class(c: char) -> u8 {
    if c.is_whitespace() {
        0
    } else if c.is_ascii_digit() {
        2
    } else if c.is_alphanumeric() {
        3
    } else {
        1
    }
}

fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// Reads a run of ASCII digits, without its leading zeros.
fn digits(chars: &mut Peekable<Chars<'_>>) -> String {
    let mut run = String::new();
    while let Some(&c) = chars.peek() {
        if !c.is_ascii_digit() {
            break;
        }
        chars.next();
        if !(run.is_empty() && c == '0') {
            run.push(c);
        }
    }
    run
}

/// Compares ignoring case: numbers by value, other characters by class, then folded.
fn primary(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        let (c, d) = match (x.peek(), y.peek()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(&c), Some(&d)) => (c, d),
        };
        if c.is_ascii_digit() && d.is_ascii_digit() {
            let (m, n) = (digits(&mut x), digits(&mut y));
            let order = m.len().cmp(&n.len()).then_with(|| m.cmp(&n));
            if order != Ordering::Equal {
                return order;
            }
            continue;
        }
        let order = class(c).cmp(&class(d)).then_with(|| fold(c).cmp(&fold(d)));
        if order != Ordering::Equal {
            return order;
        }
        x.next();
        y.next();
    }
}

/// Lower case before upper case at the first place they differ only in case.
fn case(a: &str, b: &str) -> Ordering {
    for (c, d) in a.chars().zip(b.chars()) {
        if c != d && fold(c) == fold(d) {
            return d.is_lowercase().cmp(&c.is_lowercase());
        }
    }
    Ordering::Equal
}

/// The natural order of `a` and `b` (see the module's description).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    primary(a, b)
        .then_with(|| case(a, b))
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(words: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    #[test]
    fn numbers_by_value_letters_by_letter_then_case() {
        assert_eq!(
            sorted(&["web-10", "web-2", "web-1", "api-3", "Web-2", "web-02"]),
            ["api-3", "web-1", "web-02", "web-2", "Web-2", "web-10"]
        );
        assert_eq!(
            sorted(&["ReplicaSet", "pod", "Node", "CronJob", "Pod"]),
            ["CronJob", "Node", "pod", "Pod", "ReplicaSet"]
        );
        assert_eq!(
            sorted(&["a.b", "a-b", "a b", "a1", "ab", ""]),
            ["", "a b", "a-b", "a.b", "a1", "ab"]
        );
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        assert_eq!(natural_cmp("team-09", "team-10"), Ordering::Less);
    }
}
