//! Word lists and the text properties made from them.

use crate::rng::{splitmix64, Rng};

/// The entity types, with their relative weights (out of 100).
pub(crate) const ENTITY_TYPES: [(&str, u64); 6] = [
    ("PERSON", 25),
    ("ORGANIZATION", 20),
    ("LOCATION", 15),
    ("EVENT", 10),
    ("CONCEPT", 20),
    ("PRODUCT", 10),
];

/// All entity types. Their shares of the entities: 25, 20, 15, 10, 20 and 10 %.
pub const ENTITY_TYPE_NAMES: [&str; 6] = ["PERSON", "ORGANIZATION", "LOCATION", "EVENT", "CONCEPT", "PRODUCT"];

const ADJECTIVES: [&str; 24] = [
    "Advanced",
    "Applied",
    "Comparative",
    "Computational",
    "Contemporary",
    "Critical",
    "Early",
    "Empirical",
    "Experimental",
    "Global",
    "Historical",
    "Industrial",
    "Late",
    "Modern",
    "Medieval",
    "Practical",
    "Quantitative",
    "Regional",
    "Social",
    "Statistical",
    "Structural",
    "Theoretical",
    "Urban",
    "Visual",
];

const TOPICS: [&str; 32] = [
    "Analysis",
    "Architecture",
    "Biology",
    "Cartography",
    "Chemistry",
    "Climate",
    "Commerce",
    "Cryptography",
    "Demography",
    "Diplomacy",
    "Ecology",
    "Economics",
    "Engineering",
    "Ethics",
    "Genetics",
    "Geology",
    "Governance",
    "Linguistics",
    "Literature",
    "Logistics",
    "Mathematics",
    "Medicine",
    "Metallurgy",
    "Music",
    "Navigation",
    "Optics",
    "Philosophy",
    "Physics",
    "Politics",
    "Religion",
    "Robotics",
    "Trade",
];

const DOMAINS: [&str; 24] = [
    "Agriculture",
    "Antiquity",
    "Aviation",
    "Banking",
    "Coastal Cities",
    "Colonial Empires",
    "Desert Regions",
    "Energy Systems",
    "Public Health",
    "Island Nations",
    "Manufacturing",
    "Maritime Trade",
    "Mountain Societies",
    "Northern Europe",
    "Printing",
    "Railways",
    "River Valleys",
    "Scientific Instruments",
    "Small States",
    "Space Exploration",
    "Telecommunications",
    "Textiles",
    "the Enlightenment",
    "the Silk Road",
];

const SECTION_HEADINGS: [&str; 20] = [
    "Background",
    "History",
    "Overview",
    "Origins",
    "Early Development",
    "Later Developments",
    "Methods",
    "Results",
    "Discussion",
    "Applications",
    "Criticism",
    "Reception",
    "Legacy",
    "Key Figures",
    "Geography",
    "Economy",
    "Structure",
    "Related Work",
    "Notable Examples",
    "Conclusion",
];

const ORG_SUFFIXES: [&str; 8] = [
    "Institute",
    "Corporation",
    "Foundation",
    "Group",
    "Laboratories",
    "University",
    "Agency",
    "Society",
];
const PLACE_SUFFIXES: [&str; 8] = [
    "Valley", "Bay", "River", "Province", "Island", "Heights", "Strait", "Plateau",
];
const EVENT_PREFIXES: [&str; 8] = [
    "Battle of",
    "Treaty of",
    "Summit of",
    "Festival of",
    "Expedition of",
    "Crisis of",
    "Council of",
    "Uprising of",
];
const CONCEPT_SUFFIXES: [&str; 8] = [
    "Theorem",
    "Principle",
    "Effect",
    "Hypothesis",
    "Paradox",
    "Method",
    "Model",
    "Conjecture",
];
const PRODUCT_SUFFIXES: [&str; 8] = ["X1", "Pro", "Mini", "Ultra", "One", "Max", "Lite", "II"];

const ONSETS: [&str; 20] = [
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "th",
];
const VOWELS: [&str; 5] = ["a", "e", "i", "o", "u"];

/// A document title such as "Comparative Ecology of River Valleys".
pub(crate) fn document_title(rng: &mut Rng) -> String {
    let adj = rng.pick(&ADJECTIVES);
    let topic = rng.pick(&TOPICS);
    let domain = rng.pick(&DOMAINS);
    match rng.below(4) {
        0 => format!("{adj} {topic} of {domain}"),
        // A comma, so that CSV quoting is exercised on real data.
        1 => format!("{topic}, {domain}, and {adj} Perspectives"),
        2 => format!("A History of {topic} in {domain}"),
        _ => format!("{adj} {topic}"),
    }
}

/// A section title: "1. Introduction" for the first chunk, "N. Heading" after it.
pub(crate) fn section_title(rng: &mut Rng, ordinal: u32) -> String {
    if ordinal == 0 {
        // Still draw, so the stream advances the same way for every chunk.
        let _ = rng.pick(&SECTION_HEADINGS);
        "1. Introduction".to_string()
    } else {
        format!("{}. {}", ordinal + 1, rng.pick(&SECTION_HEADINGS))
    }
}

/// Draws an entity type, weighted by [`ENTITY_TYPES`]; returns its index.
pub(crate) fn entity_type(rng: &mut Rng) -> usize {
    let mut x = rng.below(100);
    for (i, &(_, w)) in ENTITY_TYPES.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    unreachable!("entity type weights add up to 100")
}

/// Keys for the bijective scramble of entity indexes, derived from the seed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameKey(u32, u32);

impl NameKey {
    pub(crate) fn new(seed: u64) -> Self {
        let mut s = seed ^ 0x6E61_6D65_6B65_7921; // "namekey!"
        let a = splitmix64(&mut s);
        NameKey(a as u32, (a >> 32) as u32)
    }

    /// A bijection on `u32`: every step (xor, odd multiply, xorshift, add) is invertible.
    fn scramble(self, i: u32) -> u32 {
        let mut x = i ^ self.0;
        x = x.wrapping_mul(0x2C1B_3C6D);
        x ^= x >> 15;
        x = x.wrapping_add(self.1);
        x = x.wrapping_mul(0x297A_2D39);
        x ^ (x >> 16)
    }
}

fn push_syllable(out: &mut String, digit: u32, capital: bool) {
    let onset = ONSETS[(digit / 5) as usize];
    if capital {
        let mut chars = onset.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
        }
        out.push_str(chars.as_str());
    } else {
        out.push_str(onset);
    }
    out.push_str(VOWELS[(digit % 5) as usize]);
}

/// Two made-up words, unique per `index` (< 2^32): the scrambled index written in
/// base 100, one syllable per digit, 2 + 3 syllables ("Boka Themiru").
fn core_name(key: NameKey, index: u32) -> String {
    let mut x = key.scramble(index);
    let mut digits = [0u32; 5];
    for d in &mut digits {
        *d = x % 100;
        x /= 100;
    }
    let mut out = String::with_capacity(24);
    for (i, &d) in digits.iter().enumerate() {
        if i == 2 {
            out.push(' ');
        }
        push_syllable(&mut out, d, i == 0 || i == 2);
    }
    out
}

/// The canonical title of entity `index` (0-based) of type `ty`. Titles are unique:
/// the two-word core is a bijection of the index, and the decoration is fixed per type.
pub(crate) fn entity_title(rng: &mut Rng, key: NameKey, index: u32, ty: usize) -> String {
    let core = core_name(key, index);
    let pick = rng.below(8) as usize;
    match ENTITY_TYPES[ty].0 {
        "PERSON" => core,
        "ORGANIZATION" => format!("{core} {}", ORG_SUFFIXES[pick]),
        "LOCATION" => format!("{core} {}", PLACE_SUFFIXES[pick]),
        "EVENT" => format!("{} {core}", EVENT_PREFIXES[pick]),
        "CONCEPT" => format!("{core} {}", CONCEPT_SUFFIXES[pick]),
        _ => format!("{core} {}", PRODUCT_SUFFIXES[pick]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_type_names_match_weights() {
        let names: Vec<&str> = ENTITY_TYPES.iter().map(|t| t.0).collect();
        assert_eq!(names, ENTITY_TYPE_NAMES);
        assert_eq!(ENTITY_TYPES.iter().map(|t| t.1).sum::<u64>(), 100);
    }

    #[test]
    fn core_names_are_unique() {
        let key = NameKey::new(42);
        let mut names: Vec<String> = (0..200_000).map(|i| core_name(key, i)).collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
        assert!(names.iter().all(|n| n.split(' ').count() == 2));
    }

    #[test]
    fn scramble_depends_on_seed() {
        assert_ne!(core_name(NameKey::new(1), 5), core_name(NameKey::new(2), 5));
    }
}
