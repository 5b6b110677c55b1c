//! Which scenarios a run uses: files and directories given on the command
//! line, or the bundled suite; then filters.

use std::path::{Path, PathBuf};

use mcp_conform_core::diag::Diagnostic;
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::load::{discover, duplicate_ids, load_file, load_str};
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::scenario::profile::Profile;

use crate::bundled;

/// `--requirements FILE`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CatalogueArg {
    /// A catalogue of your own requirements (`ACME-001`, level, summary)
    /// that your scenarios cite, besides any `requirements.yaml` beside them.
    #[arg(long = "requirements", value_name = "FILE")]
    pub requirements: Option<PathBuf>,
}

/// The scenarios of a run, and the user's own requirements they may cite.
#[derive(Debug, Default)]
pub struct Selection {
    pub scenarios: Vec<Scenario>,
    pub catalogue: UserCatalogue,
}

/// Loads every scenario under `paths` (the bundled suite when empty),
/// keeping those whose id contains one of `filters` (all when empty).
/// Every broken file is reported, not just the first.
pub fn load_scenarios(paths: &[PathBuf], filters: &[String]) -> Result<Vec<Scenario>, Vec<Diagnostic>> {
    load_selection(paths, None, filters).map(|selection| selection.scenarios)
}

/// [`load_scenarios`], with the user's catalogue: `catalogue` and the
/// `requirements.yaml` files among and beside `paths`. The user's scenarios
/// may cite it, or nothing; the bundled ones cite the spec.
pub fn load_selection(
    paths: &[PathBuf],
    catalogue: Option<&Path>,
    filters: &[String],
) -> Result<Selection, Vec<Diagnostic>> {
    let found = if paths.is_empty() {
        Default::default()
    } else {
        discover(paths)?
    };
    let catalogue_files: Vec<PathBuf> = catalogue
        .map(Path::to_owned)
        .into_iter()
        .chain(found.catalogues)
        .collect();
    let catalogue = UserCatalogue::load(&catalogue_files)?;
    let loaded: Vec<Result<Scenario, Vec<Diagnostic>>> = if paths.is_empty() {
        bundled::scenario_files()
            .into_iter()
            .map(|(path, text)| load_str(&path, text))
            .collect()
    } else {
        found
            .scenarios
            .iter()
            .map(|path| load_file(path, &catalogue))
            .collect()
    };
    let mut scenarios = Vec::new();
    let mut diagnostics = Vec::new();
    for result in loaded {
        match result {
            Ok(scenario) => scenarios.push(scenario),
            Err(errors) => diagnostics.extend(errors),
        }
    }
    diagnostics.extend(duplicate_ids(&scenarios));
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    scenarios.retain(|s| filters.is_empty() || filters.iter().any(|f| s.id.contains(f.as_str())));
    Ok(Selection { scenarios, catalogue })
}

/// Keeps the scenarios that test this side: `run` tests servers,
/// `test-client` tests clients.
pub fn keep_role(scenarios: &mut Vec<Scenario>, role: Role) {
    scenarios.retain(|s| s.role == role);
}

/// A profile by bundled name or by path.
pub fn load_profile(name_or_path: &str) -> Result<Profile, String> {
    match bundled::profile(name_or_path) {
        Some((path, text)) => Profile::parse(text).map_err(|e| format!("{}: {e}", path.display())),
        None => Profile::load(std::path::Path::new(name_or_path)).map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use mcp_conform_core::requirements::is_spec;
    use mcp_conform_core::version::Era;

    use super::*;

    /// The bundled suite is what the spec coverage counts: each of its
    /// scenarios cites spec requirements, and only those.
    #[test]
    fn every_bundled_scenario_cites_spec_requirements_only() {
        let scenarios = load_scenarios(&[], &[]).expect("the bundled suite loads");
        assert!(scenarios.len() > 100);
        for scenario in scenarios {
            assert!(!scenario.requirements.is_empty(), "{} cites nothing", scenario.id);
            for id in &scenario.cited {
                assert!(is_spec(id), "{} cites {id}, not a spec requirement", scenario.id);
            }
        }
    }

    #[test]
    fn every_bundled_profile_loads_and_binds_its_triggers() {
        let names = bundled::profile_names();
        assert_eq!(names, ["conformance-fixture", "everything", "reference"]);
        // The project's own SDK peers carry their profiles beside them.
        let fixtures = ["python", "rust"].map(|peer| {
            format!(
                "{}/../fixtures/peers/{peer}/profile.yaml",
                env!("CARGO_MANIFEST_DIR")
            )
        });
        for name_or_path in names.iter().copied().chain(fixtures.iter().map(String::as_str)) {
            let profile = load_profile(name_or_path).unwrap_or_else(|e| panic!("{name_or_path}: {e}"));
            let name = profile.name.as_str();
            assert!(name_or_path == name || name_or_path.ends_with("/profile.yaml"));
            let eras = [Era::Stateful, Era::Stateless];
            for (trigger, binding) in eras.iter().flat_map(|era| profile.triggers_for(*era)) {
                // `*_tool` and `*_prompt` triggers name what to call and with what.
                if trigger.ends_with("_tool") || trigger.ends_with("_prompt") {
                    assert!(binding["name"].is_string(), "{name}: {trigger} names nothing");
                    assert!(
                        binding["arguments"].is_object(),
                        "{name}: {trigger} has no arguments object"
                    );
                } else {
                    assert!(binding.is_object(), "{name}: {trigger} is not a mapping");
                }
            }
        }
    }
}
