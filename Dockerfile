# Breakbench campaign image, built from this repository:
#   docker build -t breakbench:0.1.0 .
#   docker run --rm -v "$PWD/runs:/results" breakbench:0.1.0 \
#     campaign scenarios/corridor_study.yaml --out /results/corridor --jobs 2
# The image holds the `breakbench` binary (campaign, merge, analyze; built
# without the ROS 2 node feature, it needs no DDS) with the scenarios and
# config files the corridor study reads. Used by docs/k8s/ and docs/scale-out.md.
# Not built here (no container runtime on the development machine): see
# docs/scale-out.md for what was validated.

# ---- build stage: the toolchain this repository is tested with ----
FROM rust:1.95-slim-bookworm AS build
# git lets build.rs record the commit in every manifest's provenance (the
# build context must then include .git; without it the commit reads "unknown").
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p breakbench --no-default-features --bin breakbench

# ---- runtime stage ----
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /opt/breakbench breakbench
COPY --from=build /src/target/release/breakbench /usr/local/bin/breakbench
COPY --from=build /src/scenarios /opt/breakbench/scenarios
COPY --from=build /src/config /opt/breakbench/config
WORKDIR /opt/breakbench
USER breakbench
ENTRYPOINT ["breakbench"]
CMD ["--help"]
