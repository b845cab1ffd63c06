"""Rust as Exercism lays it out: a Cargo package, `src/lib.rs` (and whatever else
.meta/config.json names under src/) the solution, `tests/<slug>.rs` the task's tests,
`.meta/example.rs` the reference. Every file that tells cargo or rustc how to build (the
manifest, the lock file, a build script, cargo's own configuration, a toolchain pin) and
every test file is the task's: upstream lists Cargo.toml among the solution files, but a
model that changes it is refused (the task's is built), since a manifest names the crates
and the build scripts that the tests are linked with."""

from ..base import Layout

LAYOUT = Layout(
    name="rust", title="Rust", solution_suffixes=(".rs",),
    build_files=("Cargo.toml", "Cargo.lock", "build.rs", "config.toml", "config", "rust-toolchain",
                 "rust-toolchain.toml", ".cargo"),
    # Debian's rustc-web and cargo-web (1.85 in bookworm's main; its plain rustc is 1.63, which
    # lacks let-else, LazyLock and the manifest's [lints] that today's Rust has and models write).
    image_packages=("rustc-web", "cargo-web", "librust-anyhow-dev", "librust-rand-dev", "librust-time-dev"),
    runs_locally=False,  # the offline crate registry configured in the image is what builds the exercises
)
