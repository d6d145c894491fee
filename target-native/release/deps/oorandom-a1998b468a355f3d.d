/work/main/target-native/release/deps/oorandom-a1998b468a355f3d.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/oorandom-11.1.5/src/lib.rs

/work/main/target-native/release/deps/liboorandom-a1998b468a355f3d.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/oorandom-11.1.5/src/lib.rs

/work/main/target-native/release/deps/liboorandom-a1998b468a355f3d.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/oorandom-11.1.5/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/oorandom-11.1.5/src/lib.rs:
