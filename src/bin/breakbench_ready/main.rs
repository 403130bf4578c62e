//! `breakbench_ready`: the readiness check of an external stack
//!
//! The node is built with the `node` feature (on by default, what `colcon
//! build` and `cargo build` use). Built without it (`--no-default-features`,
//! the package's ROS-free library build) this binary only says so and exits
//! 2, so cargo-ament-build can install every binary without
//! `required-features` (which it skips).

#[cfg(feature = "node")]
mod node;

#[cfg(feature = "node")]
fn main() -> std::process::ExitCode {
    node::main()
}

#[cfg(not(feature = "node"))]
fn main() -> std::process::ExitCode {
    eprintln!(concat!(
        env!("CARGO_BIN_NAME"),
        ": built without the `node` feature (ROS 2); rebuild with default features"
    ));
    std::process::ExitCode::from(2)
}
