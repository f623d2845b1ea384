//! Where a client's request goes upstream: the upstream's URL joined with
//! the request's path, which must never leave the upstream's base path.

use reqwest::Url;

/// The upstream, as `--upstream` gave it (with or without a trailing
/// `/v1`, as OpenAI clients take `base_url`).
#[derive(Clone, Debug)]
pub struct Target {
    /// The URL less a trailing `/v1` and `/`: a client's path is appended
    /// to it as it came (`/v1/chat/completions`, `/health`).
    root: Url,
}

impl Target {
    /// Reads `--upstream`: an `http://` or `https://` URL, no query or
    /// fragment.
    pub fn parse(upstream: &str) -> Result<Target, String> {
        let bad = |why: &str| format!("--upstream {}: {why}", redact(upstream));
        let mut root = Url::parse(upstream).map_err(|e| bad(&e.to_string()))?;
        if !matches!(root.scheme(), "http" | "https") || root.host().is_none() {
            return Err(bad("not an http:// or https:// URL"));
        }
        if root.query().is_some() || root.fragment().is_some() {
            return Err(bad("a query string or fragment cannot be a base URL"));
        }
        let path = root.path().trim_end_matches('/');
        let path = path.strip_suffix("/v1").unwrap_or(path).to_owned();
        root.set_path(&path);
        Ok(Target { root })
    }

    /// The upstream URL for a request's path and query (as the request
    /// line had it, before any decoding). Refused: anything that could
    /// name a path outside the upstream's base, in any encoding.
    pub fn url(&self, path_and_query: &str) -> Result<Url, String> {
        let (path, query) = match path_and_query.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (path_and_query, None),
        };
        check_path(path)?;
        let base = self.root.as_str().trim_end_matches('/');
        let joined = match query {
            Some(query) => format!("{base}{path}?{query}"),
            None => format!("{base}{path}"),
        };
        let url = Url::parse(&joined).map_err(|e| format!("not a valid path: {e}"))?;
        // Whatever the checks above missed: the URL parser resolves dot
        // segments, so a path that escaped would show here.
        let same_server = url.scheme() == self.root.scheme()
            && url.host() == self.root.host()
            && url.port_or_known_default() == self.root.port_or_known_default()
            && url.username() == self.root.username()
            && url.password() == self.root.password();
        if !same_server || !url.path().starts_with(&base_path(&self.root)) {
            return Err("the path leaves the upstream's base path".to_owned());
        }
        Ok(url)
    }

    /// The upstream's URL for printing: without userinfo.
    pub fn display(&self) -> String {
        redact(self.root.as_str().trim_end_matches('/'))
    }

    /// Where a client's `/v1/chat/completions` goes, for printing.
    pub fn chat_completions(&self) -> String {
        match self.url("/v1/chat/completions") {
            Ok(url) => redact(url.as_str()),
            Err(_) => self.display(),
        }
    }
}

/// The root's path with a trailing `/`, so that `/api` does not match
/// `/apikeys`.
fn base_path(root: &Url) -> String {
    format!("{}/", root.path().trim_end_matches('/'))
}

/// How many times a path is percent-decoded looking for dot segments:
/// more layers than this is refused outright.
const DECODE_LAYERS: usize = 4;

/// Refuses a path that is not absolute, or that has, once decoded any
/// number of times, a `.` or `..` segment (with `/` or `\` as separators,
/// `;params` ignored, Unicode full stops counted as dots), a backslash or
/// a control character, or bytes that are not UTF-8 (overlong encodings
/// of `.` and `/`).
fn check_path(path: &str) -> Result<(), String> {
    if !path.starts_with('/') {
        return Err("the path must start with /".to_owned());
    }
    let mut layer = path.as_bytes().to_vec();
    for _ in 0..=DECODE_LAYERS {
        let text = std::str::from_utf8(&layer)
            .map_err(|_| "the path does not decode to UTF-8".to_owned())?;
        if text.contains('\\') {
            return Err("the path has a backslash".to_owned());
        }
        if text.chars().any(char::is_control) {
            return Err("the path has a control character".to_owned());
        }
        if text.split('/').any(is_dot_segment) {
            return Err("the path has a . or .. segment".to_owned());
        }
        let decoded = percent_decode(&layer);
        if decoded == layer {
            return Ok(());
        }
        layer = decoded;
    }
    Err("the path is percent-encoded too many times".to_owned())
}

/// `.` or `..`, also as `..;x` (servers that drop `;` parameters) and
/// with full stops other servers fold into `.`.
fn is_dot_segment(segment: &str) -> bool {
    let name = segment.split(';').next().unwrap_or(segment);
    let dots = name
        .chars()
        .filter(|c| matches!(c, '.' | '\u{FF0E}' | '\u{2024}' | '\u{FE52}'))
        .count();
    (dots == 1 || dots == 2) && dots == name.chars().count()
}

/// One layer of `%XX` decoding; a `%` not followed by two hex digits is
/// kept as it is.
fn percent_decode(bytes: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(high << 4 | low);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// A URL (or a path) for printing: userinfo dropped, the query string
/// replaced by `?…` (either may carry a key). Never fails: a string that
/// is not a URL is cut the same way by its text.
pub fn redact(url: &str) -> String {
    let (before_query, query) = match url.split_once('?') {
        Some((before, _)) => (before, "?…"),
        None => (url.split('#').next().unwrap_or(url), ""),
    };
    let (scheme, rest) = match before_query.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, before_query),
    };
    let rest = match scheme {
        Some(_) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{host}{path}")
        }
        None => rest.to_owned(),
    };
    match scheme {
        Some(scheme) => format!("{scheme}://{rest}{query}"),
        None => format!("{rest}{query}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(upstream: &str) -> Target {
        Target::parse(upstream).unwrap()
    }

    #[test]
    fn with_or_without_v1_a_clients_v1_path_lands_once_under_v1() {
        for upstream in [
            "http://h:8000",
            "http://h:8000/",
            "http://h:8000/v1",
            "http://h:8000/v1/",
        ] {
            let url = target(upstream).url("/v1/chat/completions").unwrap();
            assert_eq!(
                url.as_str(),
                "http://h:8000/v1/chat/completions",
                "{upstream}"
            );
            let url = target(upstream).url("/health").unwrap();
            assert_eq!(url.as_str(), "http://h:8000/health", "{upstream}");
        }
        let t = target("https://h/api/v1");
        assert_eq!(
            t.url("/v1/models?x=1&y=%2e").unwrap().as_str(),
            "https://h/api/v1/models?x=1&y=%2e"
        );
        assert_eq!(t.chat_completions(), "https://h/api/v1/chat/completions");
        // `/v1beta` is not `/v1`.
        let t = target("http://h/v1beta");
        assert_eq!(
            t.url("/v1/models").unwrap().as_str(),
            "http://h/v1beta/v1/models"
        );
    }

    #[test]
    fn ordinary_paths_pass() {
        let t = target("http://h/echo/v1");
        for path in [
            "/v1/chat/completions",
            "/v1/models/Qwen%2FQwen3-Coder",
            "/v1/files/file-abc.jsonl",
            "/v1/x/...",
            "/v1/x/.hidden",
            "/v1/caf%C3%A9",
            "/v1//models",
            "/",
        ] {
            let url = t.url(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(url.path().starts_with("/echo/"), "{path}: {url}");
        }
    }

    #[test]
    fn every_way_out_of_the_base_path_is_refused() {
        let t = target("http://h/echo/v1");
        let variants = [
            "/..",
            "/../admin",
            "/./admin",
            "/v1/../../admin",
            "/v1/./models",
            "/%2e%2e/%2e%2e/admin",
            "/%2E%2E/admin",
            "/.%2e/admin",
            "/%2e./admin",
            "/%2e/admin",
            "/%252e%252e/admin",
            "/%25252e%25252e/admin",
            "/v1/..%2fadmin",
            "/v1/..%2Fadmin",
            "/v1/%2e%2e%2fadmin",
            "/v1/..%5cadmin",
            "/v1/%5c..%5cadmin",
            "/v1\\..\\admin",
            "/v1/..\\admin",
            "/v1/%255c",
            "/..;/admin",
            "/v1/%2e%2e;x/admin",
            "/%c0%ae%c0%ae/admin",
            "/%e0%80%ae%e0%80%ae/admin",
            "/%ef%bc%8e%ef%bc%8e/admin",
            "/v1/%00",
            "/v1/%0d%0aHost:%20evil",
            "/%2525252525252e",
            "admin",
            "*",
            "",
            "http://evil/admin",
        ];
        assert!(variants.len() >= 16);
        for path in variants {
            assert!(t.url(path).is_err(), "{path} was let through");
        }
    }

    #[test]
    fn the_base_itself_cannot_be_bent() {
        // A base that is a prefix of a sibling must not admit the sibling.
        let t = target("http://h/api");
        assert!(t.url("/v1/x").unwrap().path().starts_with("/api/"));
        assert!(Target::parse("ftp://h").is_err());
        assert!(Target::parse("http://h/v1?key=k").is_err());
        assert!(Target::parse("http://").is_err());
        assert!(Target::parse("not a url").is_err());
    }

    #[test]
    fn redact_drops_userinfo_and_queries() {
        assert_eq!(redact("http://u:secret@h:8000/v1"), "http://h:8000/v1");
        assert_eq!(redact("https://h/v1/x?api_key=k&b=2"), "https://h/v1/x?…");
        assert_eq!(redact("/v1/models?key=k"), "/v1/models?…");
        assert_eq!(redact("http://h/a#frag"), "http://h/a");
        assert_eq!(redact("http://a@b@h/x?y"), "http://h/x?…");
        assert_eq!(redact("plain"), "plain");
        assert_eq!(
            target("http://user:pw@h/v1").display(),
            "http://h",
            "the printed upstream has no password"
        );
        assert_eq!(
            target("http://user:pw@h/v1").chat_completions(),
            "http://h/v1/chat/completions"
        );
    }
}
