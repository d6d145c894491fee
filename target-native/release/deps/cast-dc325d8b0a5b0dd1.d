/work/main/target-native/release/deps/cast-dc325d8b0a5b0dd1.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cast-0.3.0/src/lib.rs

/work/main/target-native/release/deps/libcast-dc325d8b0a5b0dd1.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cast-0.3.0/src/lib.rs

/work/main/target-native/release/deps/libcast-dc325d8b0a5b0dd1.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cast-0.3.0/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cast-0.3.0/src/lib.rs:
