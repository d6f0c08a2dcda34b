//! Analyzers: how text becomes terms, as the Lucene analyzers Neo4j's full-text indexes name
//! (`standard-no-stop-words`, the default; `standard`; `cjk`; `simple`; `whitespace`;
//! `keyword`). Words are split at Unicode word boundaries (UAX #29), as Lucene's
//! StandardTokenizer does.

use unicode_segmentation::UnicodeSegmentation;

/// The analyzers HopDB implements, by Neo4j's names.
pub(crate) const NAMES: &[&str] = &[
    "standard-no-stop-words",
    "standard",
    "cjk",
    "simple",
    "whitespace",
    "keyword",
];

/// Neo4j's default analyzer.
pub(crate) const DEFAULT: &str = "standard-no-stop-words";

/// Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), used by `standard`
/// and `cjk`.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Analyzer {
    StandardNoStopWords,
    Standard,
    Cjk,
    Simple,
    Whitespace,
    Keyword,
}

impl Analyzer {
    pub(crate) fn named(name: &str) -> Option<Analyzer> {
        Some(match name.to_ascii_lowercase().as_str() {
            "standard-no-stop-words" => Analyzer::StandardNoStopWords,
            "standard" => Analyzer::Standard,
            "cjk" => Analyzer::Cjk,
            "simple" => Analyzer::Simple,
            "whitespace" => Analyzer::Whitespace,
            "keyword" => Analyzer::Keyword,
            _ => return None,
        })
    }

    /// The terms of `text`, in position order.
    pub(crate) fn terms(self, text: &str) -> Vec<String> {
        match self {
            Analyzer::StandardNoStopWords => text.unicode_words().map(str::to_lowercase).collect(),
            Analyzer::Standard => text
                .unicode_words()
                .map(str::to_lowercase)
                .filter(|t| !STOP_WORDS.contains(&t.as_str()))
                .collect(),
            Analyzer::Cjk => cjk_terms(text),
            Analyzer::Simple => text
                .split(|c: char| !c.is_alphabetic())
                .filter(|t| !t.is_empty())
                .map(str::to_lowercase)
                .collect(),
            Analyzer::Whitespace => text.split_whitespace().map(str::to_string).collect(),
            Analyzer::Keyword => vec![text.to_string()],
        }
    }

    /// A wildcard or prefix term as the analyzer normalizes query terms it does not split
    /// (lower case, except for the analyzers that keep case).
    pub(crate) fn normalize(self, term: &str) -> String {
        match self {
            Analyzer::Whitespace | Analyzer::Keyword => term.to_string(),
            Analyzer::Cjk => fold_width(term).to_lowercase(),
            _ => term.to_lowercase(),
        }
    }
}

/// Whether `c` is one of the scripts Lucene's CJKBigramFilter pairs up.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F       // Hiragana
        | 0x30A0..=0x30FF     // Katakana
        | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xF900..=0xFAFF     // compatibility ideographs
        | 0xFF66..=0xFF9F     // half-width Katakana
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0x1100..=0x11FF
        | 0x20000..=0x2FA1F)
}

/// Full-width ASCII to ASCII (CJKWidthFilter).
fn fold_width(s: &str) -> String {
    s.chars()
        .map(|c| match c as u32 {
            0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// CJKAnalyzer: words, width folding, lower case, runs of adjacent CJK characters as
/// overlapping bigrams (a lone character as itself), English stop words removed.
fn cjk_terms(text: &str) -> Vec<String> {
    let text = fold_width(text);
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut run_end = usize::MAX;
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for (at, word) in text.unicode_word_indices() {
        if word.chars().all(is_cjk) {
            if at != run_end {
                flush(&mut run, &mut out);
            }
            run.extend(word.chars());
            run_end = at + word.len();
        } else {
            flush(&mut run, &mut out);
            let w = word.to_lowercase();
            if !STOP_WORDS.contains(&w.as_str()) {
                out.push(w);
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyzers_split_as_lucene_does() {
        let s = Analyzer::StandardNoStopWords;
        assert_eq!(
            s.terms("Alice Martin, of Acme-Corp (v2.5)"),
            ["alice", "martin", "of", "acme", "corp", "v2.5"]
        );
        assert_eq!(
            Analyzer::Standard.terms("The Quantum Sensor of Acme"),
            ["quantum", "sensor", "acme"]
        );
        assert_eq!(
            Analyzer::Cjk.terms("北京大学 and Lyon"),
            ["北京", "京大", "大学", "lyon"]
        );
        assert_eq!(Analyzer::Cjk.terms("北 京"), ["北", "京"]);
        assert_eq!(Analyzer::Cjk.terms("ＡＢＣ"), ["abc"]);
        assert_eq!(Analyzer::Simple.terms("R2-D2 rocks"), ["r", "d", "rocks"]);
        assert_eq!(Analyzer::Whitespace.terms("Keep Case"), ["Keep", "Case"]);
        assert_eq!(Analyzer::Keyword.terms("Whole Value"), ["Whole Value"]);
        assert_eq!(Analyzer::Standard.normalize("ALI"), "ali");
    }
}
