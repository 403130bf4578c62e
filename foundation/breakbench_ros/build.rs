//! With the `rclrs` feature: the wheels' librcl needs libpython at run time
//! (through `*__rosidl_generator_py.so`, see `shared/notes/rclrs.md`), so
//! every binary linking this crate links libpython3.11 (kept by the linker's
//! `--as-needed` because the rclrs backend takes the address of
//! `Py_IsInitialized` when it makes a node). The default build links nothing.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BREAKBENCH_PYTHON_LIB");
    if std::env::var_os("CARGO_FEATURE_RCLRS").is_some() {
        let lib = std::env::var("BREAKBENCH_PYTHON_LIB").unwrap_or_else(|_| "python3.11".into());
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}
