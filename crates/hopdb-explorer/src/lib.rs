//! The graph explorer: a page `hopdb serve` serves at `/browser/` on its HTTP port (search,
//! neighbourhood expansion, a Cypher editor, algorithms, store figures), talking to the
//! server's query API and `/metrics` only.
//!
//! The page is built from `web/` (TypeScript and npm packages bundled by esbuild:
//! `npm ci && npm run build` there) into `assets/`, which is committed and embedded here, so
//! the binary needs no files beside it and building HopDB needs no Node.js.

/// A file of the page.
#[derive(Debug)]
pub struct Asset {
    /// Its name under `/browser/`.
    pub name: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Served without credentials: only the first page (the login form and the loader that
    /// fetches the rest with the credentials given). The others need them when the server
    /// has users.
    pub public: bool,
}

macro_rules! asset {
    ($name:literal, $type:literal, $public:literal) => {
        Asset {
            name: $name,
            bytes: include_bytes!(concat!("../assets/", $name)),
            content_type: $type,
            public: $public,
        }
    };
}

/// Every file of the page (`assets/MANIFEST.txt` lists the same names).
pub const ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8", true),
    asset!("app.js", "text/javascript; charset=utf-8", false),
    asset!("app.css", "text/css; charset=utf-8", false),
    asset!("THIRD_PARTY_LICENSES.txt", "text/plain; charset=utf-8", true),
];

/// The file named `name` (under `/browser/`), if the page has one.
pub fn asset(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_lists_exactly_the_embedded_files() {
        let manifest = include_str!("../assets/MANIFEST.txt");
        let mut listed: Vec<&str> = manifest.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let mut embedded: Vec<&str> = ASSETS.iter().map(|a| a.name).collect();
        listed.sort_unstable();
        embedded.sort_unstable();
        assert_eq!(listed, embedded, "rebuilt web/ with other files: update ASSETS");
    }

    #[test]
    fn the_first_page_is_the_only_code_served_without_credentials() {
        let page = asset("index.html").unwrap_or_else(|| panic!("no index.html"));
        assert!(page.public);
        let text = std::str::from_utf8(page.bytes).unwrap_or_default();
        assert!(text.contains("login-form"), "the first page holds the login form");
        assert!(!asset("app.js").is_some_and(|a| a.public));
        assert!(asset("../Cargo.toml").is_none() && asset("").is_none());
        for a in ASSETS {
            assert!(!a.bytes.is_empty(), "{} is empty", a.name);
        }
    }
}
