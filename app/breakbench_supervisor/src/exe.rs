//! Executable lookup: where a node's `<package>/<executable>` is installed.

use std::path::{Path, PathBuf};

use super::SupervisorError;

/// Where the executables live: `BREAKBENCH_BIN_DIR`, next to the running
/// executable (`target/<profile>/`), a colcon install next to ours
/// (`install/<package>/lib/<package>/`), or `AMENT_PREFIX_PATH`.
///
/// # Errors
/// [`SupervisorError::NotFound`] listing every path tried.
pub fn find_executable(package: &str, executable: &str) -> Result<PathBuf, SupervisorError> {
    let mut tried = Vec::new();
    if let Some(d) = std::env::var_os("BREAKBENCH_BIN_DIR") {
        tried.push(PathBuf::from(d).join(executable));
    }
    if let Ok(me) = std::env::current_exe() {
        if let Some(dir) = me.parent() {
            tried.push(dir.join(executable));
            // install/<pkg>/lib/<pkg>/breakbench -> install/<package>/lib/<package>/<exe>
            if let Some(install) = dir.parent().and_then(Path::parent).and_then(Path::parent) {
                tried.push(
                    install
                        .join(package)
                        .join("lib")
                        .join(package)
                        .join(executable),
                );
            }
        }
    }
    if let Ok(prefixes) = std::env::var("AMENT_PREFIX_PATH") {
        for p in prefixes.split(':').filter(|p| !p.is_empty()) {
            tried.push(Path::new(p).join("lib").join(package).join(executable));
        }
    }
    tried
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| SupervisorError::NotFound {
            package: package.into(),
            executable: executable.into(),
            tried: tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}
