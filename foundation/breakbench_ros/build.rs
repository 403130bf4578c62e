//! With the `rclrs` feature and `BREAKBENCH_PYTHON_LIB` set (e.g. `python3.11`;
//! `scripts/rclrs_env.sh` sets it for the PyPI wheel prefix): the wheels'
//! librcl needs libpython at run time (through `*__rosidl_generator_py.so`,
//! see `shared/notes/rclrs.md`), so every binary linking this crate links
//! that library (kept by the linker's `--as-needed` because the rclrs backend
//! takes the address of `Py_IsInitialized` when it makes a node, under the
//! cfg `breakbench_link_python` set here). A real ROS 2 install's librcl
//! needs no libpython: without the variable nothing is linked. The default
//! build links nothing.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BREAKBENCH_PYTHON_LIB");
    println!("cargo::rustc-check-cfg=cfg(breakbench_link_python)");
    if std::env::var_os("CARGO_FEATURE_RCLRS").is_none() {
        return;
    }
    match std::env::var("BREAKBENCH_PYTHON_LIB") {
        Ok(lib) if !lib.is_empty() => {
            println!("cargo:rustc-link-lib=dylib={lib}");
            println!("cargo:rustc-cfg=breakbench_link_python");
        }
        _ => {}
    }
}
