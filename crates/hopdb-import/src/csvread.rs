//! neo4j-admin's CSV dialect, read record by record. The `csv` crate cannot say whether a
//! field was quoted, and neo4j-admin gives the two empty fields different meanings: `""` is
//! the empty string, an unquoted empty field is no value. So the reader is HopDB's own:
//! fields split on the delimiter, quoted fields with doubled quotes (and `\"` under
//! `--legacy-style-quoting`), line breaks inside quotes only under `--multiline-fields`, `\r\n`
//! or `\n` line ends, empty lines skipped.

use std::io::BufRead;

/// The dialect's options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    pub delimiter: u8,
    pub quote: u8,
    /// A quoted field may span lines (`--multiline-fields`).
    pub multiline: bool,
    /// `\"` inside a quoted field is a quote (`--legacy-style-quoting`).
    pub legacy_quoting: bool,
}

/// One record: its fields' bytes end to end, where each ends, and whether it was quoted.
#[derive(Default)]
pub(crate) struct Record {
    data: Vec<u8>,
    fields: Vec<(usize, bool)>,
    /// The 1-based line the record starts on.
    pub line: u64,
}

impl Record {
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Field `i`'s bytes and whether it was quoted.
    pub fn field(&self, i: usize) -> (&[u8], bool) {
        let start = if i == 0 { 0 } else { self.fields[i - 1].0 };
        let (end, quoted) = self.fields[i];
        (&self.data[start..end], quoted)
    }

    fn clear(&mut self) {
        self.data.clear();
        self.fields.clear();
    }

    fn end_field(&mut self, quoted: bool) {
        self.fields.push((self.data.len(), quoted));
    }
}

/// Why a record cannot be read; the line is where the record starts.
#[derive(Debug)]
pub(crate) enum ReadError {
    Io(std::io::Error),
    /// A quoted field reaches the end of its line without `--multiline-fields`.
    Multiline {
        line: u64,
        field: usize,
    },
    /// A quoted field is never closed.
    Unclosed {
        line: u64,
        field: usize,
    },
}

/// Reads records from `input`.
pub(crate) struct Reader<R> {
    input: R,
    dialect: Dialect,
    buf: Vec<u8>,
    /// Lines consumed so far.
    line: u64,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R, dialect: Dialect) -> Self {
        Reader {
            input,
            dialect,
            buf: Vec::with_capacity(4096),
            line: 0,
        }
    }

    /// Reads one physical line (without its `\n` / `\r\n`) into `buf`; false at the end.
    fn next_line(&mut self) -> Result<bool, ReadError> {
        self.buf.clear();
        let n = self.input.read_until(b'\n', &mut self.buf).map_err(ReadError::Io)?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        Ok(true)
    }

    /// The next record into `rec`; false at the end of the input.
    pub fn read(&mut self, rec: &mut Record) -> Result<bool, ReadError> {
        rec.clear();
        loop {
            if !self.next_line()? {
                return Ok(false);
            }
            if !self.buf.is_empty() {
                break;
            }
        }
        rec.line = self.line;
        let Dialect {
            delimiter: d,
            quote: q,
            multiline,
            legacy_quoting,
        } = self.dialect;
        let mut i = 0;
        loop {
            // At the start of a field.
            if self.buf.get(i) == Some(&q) {
                i += 1;
                // Inside quotes, possibly over several lines.
                loop {
                    let next = if legacy_quoting {
                        memchr::memchr2(q, b'\\', &self.buf[i..])
                    } else {
                        memchr::memchr(q, &self.buf[i..])
                    };
                    match next {
                        Some(p) => {
                            rec.data.extend_from_slice(&self.buf[i..i + p]);
                            i += p;
                            let c = self.buf[i];
                            let next = self.buf.get(i + 1).copied();
                            if c == b'\\' {
                                // Legacy quoting: `\"` is a quote and `\\` one backslash;
                                // any other backslash is itself (neo4j-admin).
                                if next == Some(q) || next == Some(b'\\') {
                                    rec.data.push(next.unwrap_or(q));
                                    i += 2;
                                } else {
                                    rec.data.push(b'\\');
                                    i += 1;
                                }
                            } else if next == Some(q) {
                                rec.data.push(q);
                                i += 2;
                            } else {
                                i += 1;
                                break;
                            }
                        }
                        None => {
                            rec.data.extend_from_slice(&self.buf[i..]);
                            let field = rec.fields.len();
                            if !multiline {
                                return Err(ReadError::Multiline { line: rec.line, field });
                            }
                            rec.data.push(b'\n');
                            if !self.next_line()? {
                                return Err(ReadError::Unclosed { line: rec.line, field });
                            }
                            i = 0;
                        }
                    }
                }
                // Anything between the closing quote and the delimiter belongs to the field.
                let rest = memchr::memchr(d, &self.buf[i..]).unwrap_or(self.buf.len() - i);
                rec.data.extend_from_slice(&self.buf[i..i + rest]);
                i += rest;
                rec.end_field(true);
            } else {
                let len = memchr::memchr(d, &self.buf[i..]).unwrap_or(self.buf.len() - i);
                rec.data.extend_from_slice(&self.buf[i..i + len]);
                i += len;
                rec.end_field(false);
            }
            if i >= self.buf.len() {
                return Ok(true);
            }
            i += 1; // the delimiter
            if i == self.buf.len() {
                rec.end_field(false); // a trailing delimiter: one more empty field
                return Ok(true);
            }
        }
    }
}

/// A [`Reader`] that reads up to [`AHEAD`] records beyond the one it returns, so the caller
/// can look at rows ahead (to prefetch what their endpoints will need: decision 0039). It
/// returns the same records and errors in the same order, and reads nothing past an error.
pub(crate) struct Ahead<R> {
    rdr: Reader<R>,
    queue: std::collections::VecDeque<Result<Record, ReadError>>,
    spare: Vec<Record>,
    done: bool,
}

/// Records read beyond the one returned.
pub(crate) const AHEAD: usize = 16;

impl<R: BufRead> Ahead<R> {
    pub fn new(rdr: Reader<R>) -> Self {
        Ahead {
            rdr,
            queue: std::collections::VecDeque::with_capacity(AHEAD + 1),
            spare: Vec::new(),
            done: false,
        }
    }

    /// As [`Reader::read`].
    pub fn read(&mut self, rec: &mut Record) -> Result<bool, ReadError> {
        while !self.done && self.queue.len() <= AHEAD {
            let mut r = self.spare.pop().unwrap_or_default();
            match self.rdr.read(&mut r) {
                Ok(true) => self.queue.push_back(Ok(r)),
                Ok(false) => self.done = true,
                Err(e) => {
                    self.done = true;
                    self.queue.push_back(Err(e));
                }
            }
        }
        match self.queue.pop_front() {
            None => Ok(false),
            Some(Err(e)) => Err(e),
            Some(Ok(mut r)) => {
                std::mem::swap(rec, &mut r);
                self.spare.push(r);
                Ok(true)
            }
        }
    }

    /// The record `n` (1..=[`AHEAD`]) places after the one [`read`](Self::read) returned
    /// last, if it is read and is not an error.
    pub fn ahead(&self, n: usize) -> Option<&Record> {
        match self.queue.get(n.checked_sub(1)?) {
            Some(Ok(r)) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, multiline: bool, legacy: bool) -> Result<Vec<Vec<(String, bool)>>, String> {
        let mut r = Reader::new(
            text.as_bytes(),
            Dialect {
                delimiter: b',',
                quote: b'"',
                multiline,
                legacy_quoting: legacy,
            },
        );
        let mut rec = Record::default();
        let mut out = Vec::new();
        loop {
            match r.read(&mut rec) {
                Ok(false) => return Ok(out),
                Ok(true) => out.push(
                    (0..rec.len())
                        .map(|i| {
                            let (b, q) = rec.field(i);
                            (String::from_utf8(b.to_vec()).unwrap(), q)
                        })
                        .collect(),
                ),
                Err(e) => return Err(format!("{e:?}")),
            }
        }
    }

    /// Every record as (line, fields) or the error, through `Ahead` and through `Reader`;
    /// with `Ahead`, also what `ahead(n)` showed before each record was returned.
    fn through_ahead(text: &str) -> (Vec<String>, Vec<String>, Vec<(usize, u64)>) {
        let dialect = Dialect {
            delimiter: b',',
            quote: b'"',
            multiline: false,
            legacy_quoting: false,
        };
        let show = |r: &Result<bool, ReadError>, rec: &Record| match r {
            Ok(_) => format!(
                "{}:{:?}",
                rec.line,
                (0..rec.len()).map(|i| rec.field(i)).collect::<Vec<_>>()
            ),
            Err(e) => format!("{e:?}"),
        };
        // Every read shown in order, up to the end or the first error; `after` runs after
        // each record.
        let drain = |read: &mut dyn FnMut(&mut Record) -> Result<bool, ReadError>, after: &mut dyn FnMut(usize)| {
            let (mut out, mut rec) = (Vec::new(), Record::default());
            loop {
                let got = read(&mut rec);
                if matches!(got, Ok(false)) {
                    return out;
                }
                out.push(show(&got, &rec));
                if got.is_err() {
                    return out;
                }
                after(out.len() - 1);
            }
        };
        let mut r = Reader::new(text.as_bytes(), dialect);
        let plain = drain(&mut |rec| r.read(rec), &mut |_| {});
        let a = std::cell::RefCell::new(Ahead::new(Reader::new(text.as_bytes(), dialect)));
        let mut seen = Vec::new();
        let ahead = drain(&mut |rec| a.borrow_mut().read(rec), &mut |at| {
            for n in 1..=AHEAD {
                if let Some(x) = a.borrow().ahead(n) {
                    seen.push((at + n, x.line));
                }
            }
        });
        (plain, ahead, seen)
    }

    #[test]
    fn reading_ahead_changes_nothing_read() {
        let mut text: String = (1..=40).map(|i| format!("{i},x{i}\n")).collect();
        text.push_str("41,\"open\n42,y\n");
        let (plain, ahead, seen) = through_ahead(&text);
        assert_eq!(plain.len(), 41, "40 records, then the error");
        assert!(plain[40].contains("Multiline"), "{}", plain[40]);
        assert_eq!(plain, ahead);
        // Each look ahead showed the record returned that many reads later.
        assert!(seen.len() > 500);
        for (at, line) in seen {
            assert!(
                ahead[at].starts_with(&format!("{line}:")),
                "{} vs line {line}",
                ahead[at]
            );
        }
        assert_eq!(through_ahead("").1, Vec::<String>::new());
    }

    fn f(s: &str, q: bool) -> (String, bool) {
        (s.to_string(), q)
    }

    #[test]
    fn quoted_and_unquoted_empty_fields_differ() {
        let r = records("a,\"\",,\"x\"\"y\"\r\n\n1,2\n", false, false).unwrap();
        assert_eq!(r[0], vec![f("a", false), f("", true), f("", false), f("x\"y", true)]);
        assert_eq!(r[1], vec![f("1", false), f("2", false)]);
        assert_eq!(
            records("a,\n", false, false).unwrap()[0],
            vec![f("a", false), f("", false)]
        );
    }

    #[test]
    fn multiline_fields_only_when_asked() {
        let text = "1,\"two\nlines\",3\n4,5,6\n";
        assert!(records(text, false, false)
            .unwrap_err()
            .contains("Multiline { line: 1, field: 1 }"));
        let r = records(text, true, false).unwrap();
        assert_eq!(r[0], vec![f("1", false), f("two\nlines", true), f("3", false)]);
        assert_eq!(r[1][0], f("4", false));
        assert!(records("1,\"never closed\n", true, false)
            .unwrap_err()
            .contains("Unclosed"));
    }

    #[test]
    fn legacy_quoting_reads_backslash_quotes() {
        let text = "\"say \\\"hi\\\" \\n\",x\n";
        assert_eq!(
            records(text, false, true).unwrap()[0],
            vec![f("say \"hi\" \\n", true), f("x", false)]
        );
        // `\\` is one backslash inside quotes; outside quotes backslashes are plain.
        let text = "\"back\\\\slash\",\"end\\\\\",a\\\\b\n";
        assert_eq!(
            records(text, false, true).unwrap()[0],
            vec![f("back\\slash", true), f("end\\", true), f("a\\\\b", false)]
        );
    }
}
