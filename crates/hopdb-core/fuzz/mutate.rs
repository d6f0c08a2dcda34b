// The bounded, deterministic mutation loop of the in-suite fuzz runs (stable Rust, no
// libFuzzer): crates/hopdb-core/tests/fuzz_decoders.rs and
// crates/hopdb-import/tests/fuzz_inputs.rs include it. It runs a fuzz body over the seeds,
// then over `iterations` inputs made from them by stacked bit flips, byte sets, inserts,
// deletes, truncations, chunk copies, splices with other seeds and dictionary tokens, with a
// fixed-seed generator: the same inputs every run. A panicking input is printed (as a Rust
// byte string to paste into the regression list) before the panic goes on.

#[allow(dead_code)]
mod mutate {
    /// SplitMix64: small, fast, and the same sequence everywhere.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Self {
            Rng(seed)
        }
        pub fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        /// In `0..n` (`n` > 0).
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    const INTERESTING: [u8; 10] = [0, 1, 0x7f, 0x80, 0xff, b'\n', b'"', b',', b'0', b' '];

    /// Applies 1 to 8 stacked mutations to `input`, keeping it at most `max_len` bytes.
    pub fn mutate(rng: &mut Rng, input: &mut Vec<u8>, seeds: &[Vec<u8>], dict: &[&[u8]], max_len: usize) {
        for _ in 0..1 + rng.below(8) {
            let len = input.len();
            match rng.below(11) {
                0 if len > 0 => {
                    let i = rng.below(len);
                    input[i] ^= 1 << rng.below(8);
                }
                1 if len > 0 => {
                    let i = rng.below(len);
                    input[i] = if rng.below(2) == 0 {
                        INTERESTING[rng.below(INTERESTING.len())]
                    } else {
                        rng.next() as u8
                    };
                }
                2 => {
                    let at = rng.below(len + 1);
                    let n = 1 + rng.below(8);
                    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                    input.splice(at..at, bytes);
                }
                3 if len > 0 => {
                    let at = rng.below(len);
                    let n = 1 + rng.below((len - at).min(16));
                    input.drain(at..at + n);
                }
                4 if len > 0 => input.truncate(rng.below(len)),
                5 if len > 0 => {
                    let from = rng.below(len);
                    let n = 1 + rng.below((len - from).min(64));
                    let chunk = input[from..from + n].to_vec();
                    let at = rng.below(len + 1);
                    input.splice(at..at, chunk);
                }
                6 if !seeds.is_empty() => {
                    let other = &seeds[rng.below(seeds.len())];
                    if !other.is_empty() {
                        let from = rng.below(other.len());
                        let n = 1 + rng.below((other.len() - from).min(256));
                        let at = rng.below(len + 1);
                        if rng.below(2) == 0 {
                            input.truncate(at);
                        }
                        input.splice(
                            at.min(input.len())..at.min(input.len()),
                            other[from..from + n].iter().copied(),
                        );
                    }
                }
                7 | 8 if !dict.is_empty() => {
                    let tok = dict[rng.below(dict.len())];
                    let at = rng.below(len + 1);
                    if rng.below(3) == 0 && at + tok.len() <= len {
                        input[at..at + tok.len()].copy_from_slice(tok);
                    } else {
                        input.splice(at..at, tok.iter().copied());
                    }
                }
                9 if len >= 4 => {
                    // A length or count field overwritten with a boundary value.
                    let at = rng.below(len - 3);
                    let v: u32 = [0, 1, 0x7f, 0x80, 0xffff, 0x7fff_ffff, 0xffff_ffff][rng.below(7)];
                    input[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
                10 if len > 0 => {
                    // A varint run: a byte with the continuation bit repeated.
                    let at = rng.below(len);
                    let n = 1 + rng.below(12);
                    input.splice(at..at, std::iter::repeat_n(0x80 | rng.next() as u8, n));
                }
                _ => {}
            }
        }
        input.truncate(max_len);
    }

    /// Runs `body` over `regressions`, the seeds, and `iterations` mutants; returns how many
    /// inputs it ran.
    pub fn run(
        name: &str,
        body: fn(&[u8]),
        regressions: &[&[u8]],
        seeds: &[Vec<u8>],
        dict: &[&[u8]],
        iterations: usize,
        max_len: usize,
    ) -> usize {
        let check = |input: &[u8]| {
            if let Err(p) = std::panic::catch_unwind(|| body(input)) {
                eprintln!(
                    "fuzz {name}: this input fails (add it to the regressions):\n{}",
                    escape(input)
                );
                std::panic::resume_unwind(p);
            }
        };
        let mut ran = 0;
        for r in regressions {
            check(r);
            ran += 1;
        }
        for s in seeds {
            check(s);
            ran += 1;
        }
        // A fixed seed per target: the same mutants every run.
        let mut rng = Rng::new(name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }));
        let mut input = Vec::new();
        for i in 0..iterations {
            // Mostly a fresh mutant of a seed; now and then a deeper one of the last input.
            if i % 4 != 3 || input.is_empty() {
                input = seeds[rng.below(seeds.len())].clone();
            }
            mutate(&mut rng, &mut input, seeds, dict, max_len);
            check(&input);
            ran += 1;
        }
        ran
    }

    /// `b"..."` text of `bytes`.
    pub fn escape(bytes: &[u8]) -> String {
        let mut s = String::from("b\"");
        for &b in bytes {
            s.extend(std::ascii::escape_default(b).map(char::from));
        }
        s.push('"');
        s
    }
}
