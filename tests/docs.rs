//! The documentation's links resolve: every relative link in the README, the guides in
//! docs/, configs/README.md and the changelog names a file of the repository, and every
//! anchor into a Markdown page names one of its headings; every Rust source the README and
//! the guides name in inline code exists.

mod common;

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages whose links are checked.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![
        repo().join("README.md"),
        repo().join("CHANGELOG.md"),
        repo().join("configs/README.md"),
    ];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The targets of a page's Markdown links (`[text](target)` and `![alt](target)`), outside
/// code blocks and inline code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code may hold brackets that are no links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces made dashes.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_link_in_the_documentation_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for target in links(&text) {
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target} (no such file)", page.display()));
            } else if let Some(anchor) = anchor.filter(|_| path.extension().is_some_and(|e| e == "md")) {
                if !anchors(&path).iter().any(|a| a == anchor) {
                    broken.push(format!("{}: {target} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found: is the parser right?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The inline-code spans of a page that name a Rust source (`search/node.rs`).
fn source_names(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|code| {
            code.ends_with(".rs")
                && code
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-'))
        })
        .map(str::to_string)
        .collect()
}

// The guides name source files by their path or its tail (`search/prune.rs`); a file renamed
// or removed must take its name out of them too. The changelog is history and may name
// files that are gone.
#[test]
fn every_source_file_the_guides_name_exists() {
    let files: Vec<String> = ["src", "tests", "benches", "examples"]
        .iter()
        .map(|dir| repo().join(dir))
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| common::files(&dir))
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            path.strip_prefix(repo())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for page in pages().iter().filter(|p| !p.ends_with("CHANGELOG.md")) {
        let text = std::fs::read_to_string(page).unwrap();
        for name in source_names(&text) {
            checked += 1;
            let tail = format!("/{name}");
            if !files.iter().any(|f| *f == name || f.ends_with(&tail)) {
                missing.push(format!("{}: `{name}`", page.display()));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} source names found: is the parser right?"
    );
    assert!(missing.is_empty(), "no such source file:\n{}", missing.join("\n"));
}

#[test]
fn headings_become_githubs_anchors() {
    assert_eq!(slug(" Strength: the SPRT record"), "strength-the-sprt-record");
    assert_eq!(
        slug("`qitune engine`: play in a GUI"),
        "qitune-engine-play-in-a-gui"
    );
    assert_eq!(
        links("see [a](b.md) and `[c](d)` and ![e](f.svg)"),
        ["b.md", "f.svg"]
    );
    assert_eq!(
        source_names("in `search/node.rs`, not `a b.rs` nor `x.rs()`; `src/lib.rs`"),
        ["search/node.rs", "src/lib.rs"]
    );
}
