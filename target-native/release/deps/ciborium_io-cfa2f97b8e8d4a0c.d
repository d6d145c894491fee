/work/main/target-native/release/deps/ciborium_io-cfa2f97b8e8d4a0c.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ciborium-io-0.2.2/src/lib.rs

/work/main/target-native/release/deps/libciborium_io-cfa2f97b8e8d4a0c.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ciborium-io-0.2.2/src/lib.rs

/work/main/target-native/release/deps/libciborium_io-cfa2f97b8e8d4a0c.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ciborium-io-0.2.2/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ciborium-io-0.2.2/src/lib.rs:
