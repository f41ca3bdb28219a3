//! The deploy workflow cannot run here, so this checks what can be: it parses as YAML, it tests
//! with the same command CI runs (`.ci/run` calls scripts/test.sh), builds with the driver, and
//! publishes the folder the driver writes.

use std::path::Path;
use yaml_rust2::YamlLoader;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_deploy_workflow_tests_and_builds_as_ci_does() {
    let text = std::fs::read_to_string(root().join(".github/workflows/deploy.yml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("deploy.yml is YAML");
    let build = &docs[0]["jobs"]["build"];
    let steps = build["steps"].as_vec().expect("the build job has steps");
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.contains("scripts/test.sh"),
        ".ci/run runs scripts/test.sh"
    );
    assert!(
        runs.iter().any(|r| r.contains("scripts/test.sh")),
        "{runs:?}"
    );
    assert!(
        runs.iter()
            .any(|r| r.contains("cargo run -p book -- build")),
        "{runs:?}"
    );
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-pages-artifact"))
        })
        .expect("the build uploads a Pages artifact");
    assert_eq!(upload["with"]["path"].as_str(), Some("book"));
    for key in [
        "MDBOOK_OUTPUT__HTML__SITE_URL",
        "MDBOOK_OUTPUT__HTML__GIT_REPOSITORY_URL",
        "MDBOOK_OUTPUT__HTML__EDIT_URL_TEMPLATE",
    ] {
        assert!(build["env"][key].as_str().is_some(), "{key} is set");
    }
    assert!(docs[0]["jobs"]["deploy"]["steps"].as_vec().is_some());
}
