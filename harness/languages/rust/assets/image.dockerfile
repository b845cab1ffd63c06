# Rust: Debian bookworm's rustc-web and cargo-web (1.85; the plain rustc package is 1.63),
# no network at any time. The crates the
# exercises name (anyhow, rand, time) come from Debian's packaged registry, which cargo
# takes in place of crates.io: a build that asks for any other crate fails. Builds carry no
# debug info: nothing a round reads needs it (backtraces are off, as in Aider's image, and a
# panic's message does not use it), and `cargo test --no-run` of bowling, forth and react
# took 25-35% less (1.2 s against 1.6 s for bowling, one CPU, a fresh target folder).
# Symbols get Rust's v0 names, whose demangled form spells a generic function's arguments:
# what the tests' assertions compare is read from them (languages/rust/compared_types.py).
RUN mkdir -p /opt/harness/cargo \
 && printf '[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n\n[profile.dev]\ndebug = 0\n\n[build]\nrustflags = ["-C", "symbol-mangling-version=v0"]\n' \
    > /opt/harness/cargo/config.toml
# Those crates built once for `cargo test`, each alone as an exercise names it, into the
# target folder a session's first round copies (languages/rust/testrun.py): a fresh one
# builds libc, num_threads and time before gigasecond (5 s, against under 1 s).
RUN cd /tmp && for dep in 'anyhow = "1.0"' 'rand = "0.8"' 'time = "0.3"'; do \
      rm -rf warm && mkdir -p warm/src && touch warm/src/lib.rs \
      && printf '[package]\nname = "warm"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s\n' "$dep" > warm/Cargo.toml \
      && (cd warm && CARGO_HOME=/opt/harness/cargo CARGO_TARGET_DIR=/opt/harness/cargo-target cargo test --no-run --offline -q) \
      || exit 1; done \
 && rustc --version | grep -Eq '^rustc 1\.(8[5-9]|9[0-9])\.' \
 && rm -rf /tmp/warm /opt/harness/cargo-target/debug/deps/warm-* /opt/harness/cargo-target/debug/deps/libwarm-* \
    /opt/harness/cargo-target/debug/.fingerprint/warm-* /opt/harness/cargo/registry /opt/harness/cargo/.package-cache \
 && chmod -R a+rX /opt/harness/cargo /opt/harness/cargo-target
