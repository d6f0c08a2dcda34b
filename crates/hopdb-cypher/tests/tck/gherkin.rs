//! A small Gherkin reader, enough for the openCypher TCK's feature files: `Feature`,
//! `Background`, `Scenario`, `Scenario Outline` with `Examples` (placeholders substituted),
//! tags, comments, steps with doc strings (`"""`) and data tables (`| a | b |`).

/// One step: its keyword (`Given`, `When`, `Then`, `And`, `But`), the text after it, and an
/// optional doc string or data table.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The keyword as written.
    pub keyword: String,
    /// The text after the keyword, trimmed.
    pub text: String,
    /// A `"""` doc string following the step, indentation removed.
    pub doc: Option<String>,
    /// A data table following the step: rows of unescaped, trimmed cells.
    pub table: Option<Vec<Vec<String>>>,
    /// 1-based line of the step in the feature file.
    pub line: usize,
}

/// One runnable scenario (an outline yields one per example row).
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The scenario's name as written.
    pub name: String,
    /// Tags on the scenario (and on its `Examples` block, for outline instances), without `@`.
    pub tags: Vec<String>,
    /// The feature's background steps followed by the scenario's own.
    pub steps: Vec<Step>,
    /// 1-based line of the `Scenario` keyword.
    pub line: usize,
    /// For outline instances: the 1-based index of the example row, counted across all of
    /// the outline's `Examples` blocks.
    pub example: Option<usize>,
}

/// A parsed feature file.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    /// The feature's name.
    pub name: String,
    /// Every scenario, outlines expanded.
    pub scenarios: Vec<Scenario>,
}

/// An `Examples` block: its tags, header and rows.
type ExamplesBlock = (Vec<String>, Vec<String>, Vec<Vec<String>>);

#[derive(Default)]
struct RawScenario {
    name: String,
    tags: Vec<String>,
    steps: Vec<Step>,
    line: usize,
    outline: bool,
    /// (tags, header, rows) per `Examples` block.
    examples: Vec<ExamplesBlock>,
}

enum Section {
    None,
    Background,
    Scenario,
    Examples,
}

const STEP_KEYWORDS: [&str; 6] = ["Given", "When", "Then", "And", "But", "*"];

/// Parses a feature file's text.
pub fn parse(text: &str) -> Result<Feature, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut name = String::new();
    let mut background: Vec<Step> = Vec::new();
    let mut raw: Vec<RawScenario> = Vec::new();
    let mut pending_tags: Vec<String> = Vec::new();
    let mut section = Section::None;
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let t = lines[i].trim();
        i += 1;
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('@') {
            pending_tags.extend(
                t.split_whitespace()
                    .filter_map(|w| w.strip_prefix('@'))
                    .map(str::to_owned),
            );
            continue;
        }
        if let Some(rest) = t.strip_prefix("Feature:") {
            name = rest.trim().to_owned();
            pending_tags.clear();
            section = Section::None;
            continue;
        }
        if t.starts_with("Background:") {
            section = Section::Background;
            pending_tags.clear();
            continue;
        }
        let outline = t
            .strip_prefix("Scenario Outline:")
            .or_else(|| t.strip_prefix("Scenario Template:"));
        if let Some(rest) = outline.or_else(|| t.strip_prefix("Scenario:").or_else(|| t.strip_prefix("Example:"))) {
            raw.push(RawScenario {
                name: rest.trim().to_owned(),
                tags: std::mem::take(&mut pending_tags),
                line: line_no,
                outline: outline.is_some(),
                ..RawScenario::default()
            });
            section = Section::Scenario;
            continue;
        }
        if t.starts_with("Examples:") || t.starts_with("Scenarios:") {
            let sc = raw
                .last_mut()
                .ok_or_else(|| format!("line {line_no}: Examples outside a scenario outline"))?;
            // The table follows (possibly after comments or blank lines).
            let mut header: Option<Vec<String>> = None;
            let mut rows = Vec::new();
            while i < lines.len() {
                let u = lines[i].trim();
                if u.is_empty() || u.starts_with('#') {
                    i += 1;
                    continue;
                }
                if !u.starts_with('|') {
                    break;
                }
                let cells = split_row(u);
                if header.is_none() {
                    header = Some(cells);
                } else {
                    rows.push(cells);
                }
                i += 1;
            }
            sc.examples
                .push((std::mem::take(&mut pending_tags), header.unwrap_or_default(), rows));
            section = Section::Examples;
            continue;
        }
        // A step.
        let keyword = STEP_KEYWORDS
            .iter()
            .find(|k| t.starts_with(*k) && t[k.len()..].starts_with(' '))
            .ok_or_else(|| format!("line {line_no}: cannot parse {t:?}"))?;
        let mut step = Step {
            keyword: (*keyword).to_owned(),
            text: t[keyword.len()..].trim().to_owned(),
            doc: None,
            table: None,
            line: line_no,
        };
        // An argument: a doc string or a table.
        while i < lines.len() && lines[i].trim().starts_with('#') {
            i += 1;
        }
        if i < lines.len() {
            let u = lines[i];
            let ut = u.trim_start();
            if ut.starts_with("\"\"\"") || ut.starts_with("```") {
                let fence = &ut[..3];
                let indent = u.len() - ut.len();
                i += 1;
                let mut body: Vec<String> = Vec::new();
                loop {
                    let Some(l) = lines.get(i) else {
                        return Err(format!("line {line_no}: unterminated doc string"));
                    };
                    i += 1;
                    if l.trim() == fence {
                        break;
                    }
                    // Remove the fence's indentation (but no more than the line's leading spaces).
                    let lead = l.len() - l.trim_start().len();
                    body.push(l[lead.min(indent)..].to_owned());
                }
                step.doc = Some(body.join("\n"));
            } else if ut.starts_with('|') {
                let mut table = Vec::new();
                while i < lines.len() {
                    let l = lines[i].trim();
                    if l.starts_with('#') {
                        i += 1;
                        continue;
                    }
                    if !l.starts_with('|') {
                        break;
                    }
                    table.push(split_row(l));
                    i += 1;
                }
                step.table = Some(table);
            }
        }
        match section {
            Section::Background => background.push(step),
            Section::Scenario => {
                if let Some(sc) = raw.last_mut() {
                    sc.steps.push(step);
                }
            }
            Section::Examples | Section::None => {
                return Err(format!("line {line_no}: step outside a scenario: {t:?}"));
            }
        }
    }

    let mut scenarios = Vec::new();
    for sc in raw {
        let with_background = |steps: &[Step]| {
            let mut all = background.clone();
            all.extend_from_slice(steps);
            all
        };
        if !sc.outline {
            scenarios.push(Scenario {
                name: sc.name,
                tags: sc.tags,
                steps: with_background(&sc.steps),
                line: sc.line,
                example: None,
            });
            continue;
        }
        let mut index = 0;
        for (tags, header, rows) in &sc.examples {
            for row in rows {
                index += 1;
                let subst = |s: &str| substitute(s, header, row);
                let steps: Vec<Step> = sc
                    .steps
                    .iter()
                    .map(|st| Step {
                        keyword: st.keyword.clone(),
                        text: subst(&st.text),
                        doc: st.doc.as_deref().map(subst),
                        table: st
                            .table
                            .as_ref()
                            .map(|t| t.iter().map(|r| r.iter().map(|c| subst(c)).collect()).collect()),
                        line: st.line,
                    })
                    .collect();
                let mut all_tags = sc.tags.clone();
                all_tags.extend(tags.iter().cloned());
                scenarios.push(Scenario {
                    name: subst(&sc.name),
                    tags: all_tags,
                    steps: with_background(&steps),
                    line: sc.line,
                    example: Some(index),
                });
            }
        }
    }
    Ok(Feature { name, scenarios })
}

/// Replaces every `<name>` of the header with the row's value.
fn substitute(s: &str, header: &[String], row: &[String]) -> String {
    let mut out = s.to_owned();
    for (h, v) in header.iter().zip(row) {
        out = out.replace(&format!("<{h}>"), v);
    }
    out
}

/// Splits a table row `| a | b\|c |` into trimmed, unescaped cells (`\|` is a bar, `\\` a
/// backslash, `\n` a newline; any other backslash is kept).
pub fn split_row(line: &str) -> Vec<String> {
    let line = line.trim();
    let body = line.strip_prefix('|').unwrap_or(line);
    let mut raw_cells: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                // Keep escapes raw for now; only the separator matters here.
                cur.push('\\');
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '|' => raw_cells.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    // Text after the last bar (normally nothing) is not a cell.
    raw_cells.iter().map(|c| unescape_cell(c.trim())).collect()
}

fn unescape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('|') => out.push('|'),
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}
