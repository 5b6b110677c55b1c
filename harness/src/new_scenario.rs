//! `new scenario <id>`: a commented skeleton to start a scenario from.
//!
//! The skeleton loads as written, but requires a capability no server
//! declares, so running it reports not-applicable with a reason that says it
//! is a skeleton — never a vacuous pass before its checks are written.

use std::path::{Path, PathBuf};

/// The schema's file name beside the scenario, for the editor modeline.
const SCHEMA_FILE: &str = "scenario.schema.json";

/// Writes `<dir>/<id>.yaml` (refusing to overwrite) and, when missing,
/// `<dir>/scenario.schema.json`; returns the scenario's path.
pub fn write(id: &str, dir: &Path) -> Result<PathBuf, String> {
    if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
        return Err(format!(
            "`{id}` is not a scenario ID (letters, digits, dots and dashes, such as `acme.echo`)"
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{id}.yaml"));
    if path.exists() {
        return Err(format!("{} already exists", path.display()));
    }
    std::fs::write(&path, skeleton(id)).map_err(|e| format!("{}: {e}", path.display()))?;
    let schema = dir.join(SCHEMA_FILE);
    if !schema.exists() {
        let text = serde_json::to_string_pretty(&mcp_conform_core::scenario::schema::scenario_json_schema())
            .expect("the schema is JSON");
        std::fs::write(&schema, text + "\n").map_err(|e| format!("{}: {e}", schema.display()))?;
    }
    Ok(path)
}

fn skeleton(id: &str) -> String {
    format!(
        "# yaml-language-server: $schema={SCHEMA_FILE}
# A scenario: what it checks (`requirements`), what the peer must offer
# (`requires`) and the steps. `mcp-conform explain {id}` reads it back in
# words; `mcp-conform run <this file>` runs it against the reference server.
id: {id}
title: Say in one line what a correct peer does
# description: |
#   Why this matters, and where the spec (or your product) says so.
# requirements: [OWN-001]   # IDs from the catalogue or your requirements.yaml
versions: all
# Delete this line once the steps check something: until then the scenario
# is reported not-applicable, never passed.
requires: {{ capabilities: [experimental.unwritten-skeleton] }}
steps:
  - request:
      method: tools/list
      expect:
        result:
          tools: {{ $type: array }}
"
    )
}
