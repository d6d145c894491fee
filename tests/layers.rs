//! The runtime's files form five layers (listed in `LAYERS` below): a
//! file may import from its own layer and the ones before it, never from a
//! later one. That rules out import circles between layers, and keeps the
//! data (storage, entities, masks, ticks) from knowing the queries, systems
//! and world built on it. This test reads `ecs/src` and checks every
//! `crate::` path outside the files' unit tests.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, first to last: a top-level module (`storage`, `mask`) or a
/// file (`event/read.rs`), which takes precedence over its folder.
const LAYERS: [&[&str]; 5] = [
    // The data.
    &[
        "mask",
        "schema",
        "misuse",
        "lend",
        "storage",
        "entity",
        "tick",
        "changes",
        "retention",
        "stable_hash",
        "save",
        "pool",
        "relations",
    ],
    // Structural change.
    &["structure", "bundle", "entity_ref"],
    // The world and what reads it.
    &[
        "world_impl",
        "query",
        "event",
        "state",
        "commands",
        "command_buffer",
        "component_bounds",
        "hook",
    ],
    // Systems, and each feature's parameters beside the feature.
    &[
        "system",
        "schedule",
        "event/read.rs",
        "state/next.rs",
        "removed",
        "sparse_mut",
        "spawner",
        "migrator",
        "despawner",
    ],
    // The public modules that gather items of several files: re-exports
    // only, named by no other file.
    &[
        "world",
        "relation",
        "change",
        "command",
        "checksum",
        "condition",
        "soa",
        // The guide: documentation only, it imports nothing.
        "guide",
    ],
];

/// The one use of a later layer that is allowed, and why: `Schema`
/// dispatches a component's hooks, and a hook's signature names the
/// `DeferredWorld` it receives (layer 3). The derive writes the dispatch in
/// the user's crate; the trait only declares it, so no code of layer 1 runs
/// anything of layer 3.
const EXCEPTIONS: [(&str, &str); 1] = [("schema.rs", "hook")];

fn layer_of_module(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The layer of a file, by its path under `ecs/src`.
fn layer_of_file(relative: &str) -> Option<usize> {
    if let Some(layer) = LAYERS.iter().position(|layer| layer.contains(&relative)) {
        return Some(layer);
    }
    let top = relative.split('/').next()?.trim_end_matches(".rs");
    layer_of_module(top)
}

/// The layer a `crate::` path leads to: `crate::event::read::...` is
/// `event/read.rs`'s.
fn layer_of_path(path: &str) -> Option<usize> {
    let mut segments = path.split("::");
    let top = segments.next()?;
    if let Some(second) = segments.next() {
        let file = format!("{top}/{second}.rs");
        if let Some(layer) = LAYERS
            .iter()
            .position(|layer| layer.contains(&file.as_str()))
        {
            return Some(layer);
        }
    }
    layer_of_module(top)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::a::b` paths of `source` outside comments and its
/// `#[cfg(test)] mod tests`, as `a::b` (one or two segments).
fn crate_paths(source: &str) -> Vec<String> {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(source);
    let mut paths = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            // `$crate::` is a macro's path to the crate's public items.
            let dollar = rest[..at].ends_with('$');
            let tail = &rest[at + "crate::".len()..];
            let end = tail
                .find(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            let path: Vec<&str> = tail[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .take(2)
                .collect();
            if !dollar && !path.is_empty() {
                paths.push(path.join("::"));
            }
            rest = tail;
        }
    }
    paths
}

#[test]
fn no_file_imports_from_a_later_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ecs/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if relative == "lib.rs" {
            continue;
        }
        let layer = layer_of_file(&relative)
            .unwrap_or_else(|| panic!("{relative} is in no layer: add it to LAYERS"));
        for path in crate_paths(&fs::read_to_string(file).unwrap()) {
            let Some(target) = layer_of_path(&path) else {
                continue;
            };
            checked += 1;
            if EXCEPTIONS.contains(&(relative.as_str(), path.as_str())) {
                continue;
            }
            if target > layer {
                wrong.push(format!(
                    "{relative} (layer {}) uses crate::{path} (layer {})",
                    layer + 1,
                    target + 1
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} crate:: paths found: is ecs/src there?"
    );
    assert!(
        wrong.is_empty(),
        "imports from a later layer:\n{}",
        wrong.join("\n")
    );
}
