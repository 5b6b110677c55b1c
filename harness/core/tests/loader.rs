//! Scenario directories the loader must refuse with a located diagnostic
//! instead of hanging or running a scenario twice: symlink cycles (a link
//! to an ancestor, a link to its own directory), two files with one id,
//! trees too deep or too large. Each renders as its snapshot, with the
//! temporary directory shown as `<dir>`.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use mcp_conform_core::diag::Diagnostic;
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::{MAX_DEPTH, MAX_FILES, discover, duplicate_ids, load_file};
use tempfile::TempDir;

fn scenario(id: &str) -> String {
    format!("id: {id}\ntitle: t\nrequirements: [RPC-011]\nsteps:\n  - alive: {{}}\n")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The diagnostics as text, paths relative to `dir`.
fn rendered(dir: &Path, diagnostics: &[Diagnostic]) -> String {
    let text: String = diagnostics.iter().map(|d| d.render(false) + "\n").collect();
    let real = std::fs::canonicalize(dir).unwrap();
    text.replace(&real.display().to_string(), "<dir>")
        .replace(&dir.display().to_string(), "<dir>")
}

fn discovered(dir: &Path) -> Result<Vec<PathBuf>, String> {
    discover(&[dir.to_owned()])
        .map(|found| found.scenarios)
        .map_err(|diagnostics| rendered(dir, &diagnostics))
}

#[test]
fn a_symlink_to_an_ancestor_is_a_cycle() {
    let dir = TempDir::new().unwrap();
    write(&dir.path().join("a/one.yaml"), &scenario("one"));
    symlink("..", dir.path().join("a/up")).unwrap();
    insta::assert_snapshot!(discovered(dir.path()).unwrap_err());
}

#[test]
fn a_symlink_to_its_own_directory_is_a_cycle() {
    let dir = TempDir::new().unwrap();
    write(&dir.path().join("one.yaml"), &scenario("one"));
    symlink(".", dir.path().join("self")).unwrap();
    insta::assert_snapshot!(discovered(dir.path()).unwrap_err());
}

#[test]
fn a_file_reached_by_two_links_loads_once() {
    let dir = TempDir::new().unwrap();
    write(&dir.path().join("real/one.yaml"), &scenario("one"));
    symlink("real", dir.path().join("alias")).unwrap();
    symlink("real/one.yaml", dir.path().join("one-again.yaml")).unwrap();
    assert_eq!(discovered(dir.path()).unwrap().len(), 1);
}

#[test]
fn two_files_with_one_id_name_both_files() {
    let dir = TempDir::new().unwrap();
    write(&dir.path().join("a.yaml"), &scenario("same"));
    write(&dir.path().join("b/c.yaml"), &scenario("same"));
    write(&dir.path().join("d.yaml"), &scenario("other"));
    let scenarios: Vec<_> = discovered(dir.path())
        .unwrap()
        .iter()
        .map(|path| load_file(path, &UserCatalogue::default()).unwrap())
        .collect();
    insta::assert_snapshot!(rendered(dir.path(), &duplicate_ids(&scenarios)));
}

#[test]
fn a_tree_too_deep_is_refused() {
    let dir = TempDir::new().unwrap();
    let deep: PathBuf = (0..=MAX_DEPTH + 1).map(|level| format!("d{level}")).collect();
    write(&dir.path().join(&deep).join("one.yaml"), &scenario("one"));
    insta::assert_snapshot!(discovered(dir.path()).unwrap_err());
    // At the limit it loads.
    let fine = TempDir::new().unwrap();
    let limit: PathBuf = (0..MAX_DEPTH).map(|level| format!("d{level}")).collect();
    write(&fine.path().join(&limit).join("one.yaml"), &scenario("one"));
    assert_eq!(discovered(fine.path()).unwrap().len(), 1);
}

#[test]
fn too_many_files_are_refused() {
    let dir = TempDir::new().unwrap();
    for file in 0..=MAX_FILES {
        std::fs::write(dir.path().join(format!("f{file:05}.yaml")), "").unwrap();
    }
    insta::assert_snapshot!(discovered(dir.path()).unwrap_err());
    std::fs::remove_file(dir.path().join("f00000.yaml")).unwrap();
    assert_eq!(discovered(dir.path()).unwrap().len(), MAX_FILES);
}

#[test]
fn requirement_catalogues_are_found_not_run() {
    let dir = TempDir::new().unwrap();
    write(&dir.path().join("a/one.yaml"), &scenario("one"));
    write(&dir.path().join("a/requirements.yaml"), "[]\n");
    write(&dir.path().join("b/two.yaml"), &scenario("two"));
    write(&dir.path().join("b/requirements.yml"), "[]\n");
    let found = discover(&[dir.path().join("a"), dir.path().join("b/two.yaml")]).unwrap();
    assert_eq!(
        found.scenarios,
        [dir.path().join("a/one.yaml"), dir.path().join("b/two.yaml")]
    );
    // Beside a file given, only `requirements.yaml` is looked for.
    assert_eq!(found.catalogues, [dir.path().join("a/requirements.yaml")]);
}
