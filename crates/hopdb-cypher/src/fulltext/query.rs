//! The full-text query language: the part of Lucene's classic query syntax that search
//! boxes send. Whitespace-separated clauses, each optionally `+` (must match), `-` (must not),
//! `field:`-qualified, a word (analyzed: it may give several terms, any of which matches), a
//! `"quoted phrase"`, or a pattern with `*` / `?` (normalized, not analyzed; every match
//! scores the same, as Lucene's constant-score rewrite). `AND`, `OR`, `NOT` (and `&&`, `||`,
//! `!`) join clauses; the default operator is OR. A backslash escapes the next character.
//! Grouping, fuzzy (`~`), boosts (`^`), ranges and regular expressions are refused.

use super::analyzer::Analyzer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Occur {
    Should,
    Must,
    MustNot,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Matcher {
    /// Any of these terms (one analyzed word).
    Terms(Vec<String>),
    /// These terms at consecutive positions.
    Phrase(Vec<String>),
    /// Terms matching a pattern (`*`: any run, `?`: one character).
    Pattern(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clause {
    pub occur: Occur,
    /// The property it is limited to, if any.
    pub field: Option<String>,
    pub matcher: Matcher,
}

/// Parses `text`; errs with a message naming the unsupported syntax.
pub(crate) fn parse(text: &str, analyzer: Analyzer) -> Result<Vec<Clause>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut out: Vec<Clause> = Vec::new();
    let mut pending: Option<Occur> = None;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // Operators.
        let word_end = (i..chars.len())
            .find(|&j| chars[j].is_whitespace())
            .unwrap_or(chars.len());
        let word: String = chars[i..word_end].iter().collect();
        match word.as_str() {
            "AND" | "&&" => {
                if let Some(last) = out.last_mut() {
                    if last.occur == Occur::Should {
                        last.occur = Occur::Must;
                    }
                }
                pending = Some(Occur::Must);
                i = word_end;
                continue;
            }
            "OR" | "||" => {
                i = word_end;
                continue;
            }
            "NOT" | "!" => {
                pending = Some(Occur::MustNot);
                i = word_end;
                continue;
            }
            _ => {}
        }
        let mut occur = pending.take().unwrap_or(Occur::Should);
        match c {
            '+' => {
                occur = Occur::Must;
                i += 1;
            }
            '-' | '!' => {
                occur = Occur::MustNot;
                i += 1;
            }
            _ => {}
        }
        // `field:`
        let mut field = None;
        let mut j = i;
        let mut name = String::new();
        while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '.') {
            name.push(chars[j]);
            j += 1;
        }
        if j < chars.len() && chars[j] == ':' && !name.is_empty() {
            field = Some(name);
            i = j + 1;
        }
        let Some(&first) = chars.get(i) else {
            return Err("a clause ends without a term".into());
        };
        if first == '"' {
            let end = (i + 1..chars.len())
                .find(|&k| chars[k] == '"' && chars[k - 1] != '\\')
                .ok_or("an unterminated quoted phrase")?;
            let inner: String = chars[i + 1..end].iter().collect();
            let terms = analyzer.terms(&unescape(&inner));
            i = end + 1;
            if chars.get(i) == Some(&'~') {
                return Err("proximity (`\"...\"~n`)".into());
            }
            if !terms.is_empty() {
                out.push(Clause {
                    occur,
                    field,
                    matcher: Matcher::Phrase(terms),
                });
            }
            continue;
        }
        let mut raw = String::new();
        let mut wild = false;
        while i < chars.len() && !chars[i].is_whitespace() {
            let ch = chars[i];
            match ch {
                '\\' => {
                    if let Some(&n) = chars.get(i + 1) {
                        raw.push(n);
                        i += 2;
                        continue;
                    }
                    return Err("a trailing backslash".into());
                }
                '*' | '?' => {
                    wild = true;
                    raw.push(ch);
                }
                '(' | ')' => return Err("grouping with parentheses".into()),
                '~' => return Err("fuzzy queries (`~`)".into()),
                '^' => return Err("boosts (`^`)".into()),
                '[' | ']' | '{' | '}' => return Err("range queries".into()),
                '/' => return Err("regular expressions (`/.../`)".into()),
                '"' | ':' => return Err(format!("`{ch}` inside a term (escape it with a backslash)")),
                _ => raw.push(ch),
            }
            i += 1;
        }
        let matcher = if wild {
            if raw.chars().all(|c| c == '*') {
                Matcher::Pattern("*".into())
            } else {
                Matcher::Pattern(analyzer.normalize(&raw))
            }
        } else {
            let terms = analyzer.terms(&raw);
            if terms.is_empty() {
                continue;
            }
            Matcher::Terms(terms)
        };
        out.push(Clause { occur, field, matcher });
    }
    Ok(out)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `term` matches a `*` / `?` pattern.
pub(crate) fn pattern_matches(pattern: &str, term: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = term.chars().collect();
    // Iterative glob matching with backtracking to the last `*`.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Vec<Clause> {
        parse(s, Analyzer::StandardNoStopWords).unwrap()
    }

    #[test]
    fn clauses_and_operators() {
        assert_eq!(
            q("Acme ali*"),
            vec![
                Clause {
                    occur: Occur::Should,
                    field: None,
                    matcher: Matcher::Terms(vec!["acme".into()])
                },
                Clause {
                    occur: Occur::Should,
                    field: None,
                    matcher: Matcher::Pattern("ali*".into())
                },
            ]
        );
        let c = q("+a -b c AND d NOT e name:\"Alice Martin\"");
        let occurs: Vec<Occur> = c.iter().map(|c| c.occur).collect();
        assert_eq!(
            occurs,
            [
                Occur::Must,
                Occur::MustNot,
                Occur::Must,
                Occur::Must,
                Occur::MustNot,
                Occur::Should
            ]
        );
        assert_eq!(c[5].field.as_deref(), Some("name"));
        assert_eq!(c[5].matcher, Matcher::Phrase(vec!["alice".into(), "martin".into()]));
        for bad in ["(a b)", "a~2", "a^3", "[a TO b]", "/re/", "\"open"] {
            assert!(parse(bad, Analyzer::StandardNoStopWords).is_err(), "{bad}");
        }
    }

    #[test]
    fn patterns() {
        assert!(pattern_matches("ali*", "alice"));
        assert!(pattern_matches("a?i*e", "alice"));
        assert!(pattern_matches("*ce", "alice"));
        assert!(!pattern_matches("ali*", "malice"));
        assert!(pattern_matches("*", ""));
        assert!(!pattern_matches("a?", "a"));
    }
}
