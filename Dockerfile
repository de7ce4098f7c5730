# kioku's container image: a release build on Debian 12, run on distroless as non-root.
# Built by cloudbuild.yaml; scripts/check-release builds the binary with the same command.

# The exact toolchain link/code-order.txt was made with (scripts/order-code): symbol names,
# which that file lists, change with the compiler's version.
ARG RUST_VERSION=1.95.0

# cargo-chef splits the build so that dependencies, which change rarely, are a cached layer of
# their own and a code-only change recompiles only kioku.
FROM rust:${RUST_VERSION}-bookworm AS chef
RUN cargo install cargo-chef --locked --version 0.1.78
WORKDIR /app

# Only what the build reads: the manifests, the code and the text compiled into it; never data,
# exports or env files that may sit in the build context.
FROM chef AS source
COPY Cargo.toml Cargo.lock build.rs ./
COPY link link
COPY src src
COPY benches benches
COPY prompts prompts
COPY templates templates

FROM source AS planner
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
RUN cargo chef cook --release --locked --recipe-path recipe.json --bin kioku
COPY --from=source /app ./
# Packed relocations (build.rs): the runtime below is Debian 12, glibc 2.36.
RUN KIOKU_PACK_RELOCATIONS=1 cargo build --release --locked --bin kioku

# An embedding model for search by meaning, optional: `--build-context model=<dir>` puts that
# directory (config.json, tokenizer.json, model.safetensors) at /model, and
# KIOKU_EMBEDDING_MODEL=/model on the service turns it on (docs/deploy.md). Without it, /model is
# empty and the image is as it was.
FROM scratch AS model

# glibc and libgcc, a user `nonroot` (uid 65532), CA certificates and nothing else.
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
COPY --from=builder /app/target/release/kioku /usr/local/bin/kioku
COPY --from=model / /model/
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/kioku"]
