//! The release workflow: actionlint passes, and its archives are named as cargo-binstall
//! looks for them with no metadata: `{ name }-{ target }-v{ version }.tgz` (`.zip` for
//! Windows) holding `{ name }-{ target }-v{ version }/{ bin }{ binary-ext }`.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::built::{MANIFEST_DIR, run, tool};

fn release_workflow() -> String {
    fs::read_to_string(Path::new(MANIFEST_DIR).join(".github/workflows/release.yml")).unwrap()
}

/// The lines of the top-level job NAME.
fn job<'a>(workflow: &'a str, name: &str) -> Vec<&'a str> {
    let header = format!("  {name}:");
    workflow
        .lines()
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| line.is_empty() || line.starts_with("   "))
        .collect()
}

/// cargo-binstall's default archive name and folder for one target, with the workflow's
/// own placeholders for the target and the version.
fn binstall_name(target: &str, version: &str) -> String {
    format!("{}-{target}-v{version}", env!("CARGO_PKG_NAME"))
}

#[test]
fn release_archives_are_named_as_cargo_binstall_looks_for_them() {
    let workflow = release_workflow();
    let binaries = job(&workflow, "binaries");
    assert!(!binaries.is_empty(), "no binaries job");

    let targets: Vec<&str> = binaries
        .iter()
        .filter_map(|line| line.trim().strip_prefix("- { target: "))
        .map(|rest| rest.split(',').next().unwrap())
        .collect();
    assert_eq!(
        targets,
        [
            "x86_64-unknown-linux-musl",
            "aarch64-unknown-linux-musl",
            "x86_64-apple-darwin",
            "aarch64-apple-darwin"
        ]
    );

    let name = binaries
        .iter()
        .find_map(|line| line.trim().strip_prefix("NAME: "))
        .expect("the archive's NAME");
    assert_eq!(
        name,
        binstall_name(
            "${{ matrix.target }}",
            "${{ needs.version.outputs.version }}"
        )
    );
    // The archive NAME.tgz holds the folder NAME with the binary in it.
    let steps = binaries.join("\n");
    for part in [
        r#"mkdir -p "dist/$NAME""#,
        r#"cp "target/${{ matrix.target }}/release/sitemapgen" README.md "dist/$NAME/""#,
        r#"tar -C dist -czf "dist/$NAME.tgz" "$NAME""#,
    ] {
        assert!(steps.contains(part), "the binaries job lacks {part}");
    }
    // The version in the name is Cargo.toml's, and the tag names it.
    let version = job(&workflow, "version").join("\n");
    assert!(version.contains(r#"if [ "$GITHUB_REF_NAME" != "v$version" ]; then"#));
}

/// Windows x86_64 is built on Windows (MSVC) into the archive cargo-binstall looks for there,
/// a .zip (its default format for Windows targets) of the folder holding sitemapgen.exe, and
/// into the win_amd64 wheel and the npm package's binary; the CLI tests run against it under
/// Wine but for those tests/cli/unix-only.txt names, and the publish job waits for them.
#[test]
fn release_builds_windows_on_windows_into_the_zip_cargo_binstall_looks_for() {
    let workflow = release_workflow();
    let windows = job(&workflow, "windows");
    let steps = windows.join("\n");
    assert!(steps.contains("    runs-on: windows-2022\n"), "{steps}");
    assert!(steps.contains("      TARGET: x86_64-pc-windows-msvc\n"));
    let name = windows
        .iter()
        .find_map(|line| line.trim().strip_prefix("NAME: "))
        .expect("the archive's NAME");
    assert_eq!(
        name,
        binstall_name(
            "x86_64-pc-windows-msvc",
            "${{ needs.version.outputs.version }}"
        )
    );
    for part in [
        r#"cargo build --release --locked --target "$TARGET""#,
        r#"cp "target/$TARGET/release/sitemapgen.exe" README.md "dist/$NAME/""#,
        r#"(cd dist && python -m zipfile -c "$NAME.zip" "$NAME")"#,
        "path: dist/${{ env.NAME }}.zip",
        r#"maturin build --release --locked --target "$TARGET" --out wheels"#,
        "name: npm-bin-win32-x64",
    ] {
        assert!(steps.contains(part), "the windows job lacks {part}");
    }
    let tests = job(&workflow, "windows-tests").join("\n");
    for part in [
        "    needs: windows\n",
        "done <tests/cli/unix-only.txt",
        r#"cargo test --locked --test cli -- --exact "${skips[@]}""#,
    ] {
        assert!(tests.contains(part), "the windows-tests job lacks {part}");
    }
    let publish = job(&workflow, "publish").join("\n");
    assert!(publish.contains("needs: [version, binaries, windows, windows-tests, "));
    assert!(publish.contains("darwin-x64 darwin-arm64 win32-x64; do"));
}

/// The wheels job makes the wheel for any platform from the x86_64 glibc one, as the tests
/// do (built.rs); the publish job pins the archives' sums in the action before the release.
#[test]
fn release_makes_the_wheel_without_binary_and_pins_the_archives_in_the_action() {
    let workflow = release_workflow();
    let wheels = job(&workflow, "wheels").join("\n");
    assert!(wheels.contains(
        "        if: matrix.target == 'x86_64-unknown-linux-gnu'\n        \
         run: python python/any_wheel.py wheels/*.whl wheels\n"
    ));
    let publish = job(&workflow, "publish").join("\n");
    let sums = publish.find("sha256sum -- * > SHA256SUMS").unwrap();
    let pin = publish
        .find(r#".github/pin-action.sh "$VERSION" release/SHA256SUMS"#)
        .expect("the publish job pins the sums");
    let tag = publish
        .find(r#"git push --force origin "refs/tags/$GITHUB_REF_NAME""#)
        .unwrap();
    let release = publish.find("gh release create").unwrap();
    assert!(sums < pin && pin < tag && tag < release);
}

#[test]
fn workflows_pass_actionlint() {
    let Some(actionlint) = tool("actionlint") else {
        return;
    };
    let workflows: Vec<_> = fs::read_dir(Path::new(MANIFEST_DIR).join(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(!workflows.is_empty());
    run(Command::new(actionlint)
        .current_dir(MANIFEST_DIR)
        .arg("-no-color")
        .args(&workflows));
}
