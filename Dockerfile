# Kyku: one image with the three static binaries; its entrypoint is the
# GitHub App bot. The build commands are exactly those .ci/run runs, so a
# broken build fails CI even where no Docker engine exists.
#
#   docker build -t kyku .
#   docker run -p 8080:8080 -e GITHUB_APP_ID=… -e GITHUB_APP_PRIVATE_KEY_FILE=/keys/app.pem \
#     -e GITHUB_WEBHOOK_SECRET=… -v "$PWD/keys:/keys:ro" kyku
#   docker run --rm --entrypoint /usr/local/bin/kyku kyku plan   # the CLI
#   docker run --rm --entrypoint /usr/local/bin/action kyku      # the Action's binary
#
# That image runs no Terraform provider (their sandbox needs bubblewrap,
# setpriv and root): the stage bot-sandbox below does.

# The build stage runs on the builder's own platform and cross-compiles for
# the image's (buildx --platform linux/amd64,linux/arm64, as release.yml
# does): no emulated compiler. VERSION and COMMIT stamp kyku as the
# release's binaries are (`kyku version`; .git is not in the context).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION
ARG COMMIT
RUN export GOOS=$TARGETOS GOARCH=$TARGETARCH \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION:-} -X main.commit=${COMMIT:-}" -o /out/kyku ./cmd/kyku \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION:-} -X main.commit=${COMMIT:-}" -o /out/kyku-engine ./cmd/kyku-engine \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/action ./cmd/action \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/bot ./cmd/bot

# The bot for repositories whose policy grants Terraform providers: each
# runs in bubblewrap's sandbox (Debian 12's bubblewrap is 0.8) as a user of
# its own that setpriv (util-linux) becomes, in a network of its own, which
# needs the bot to run as root. bubblewrap then needs, from Docker, the
# capabilities to make namespaces and mounts (SYS_ADMIN) and to bring up
# the loopback of the provider's network (NET_ADMIN), and pivot_root and
# mount, which Docker's default seccomp profile and AppArmor profile
# refuse whatever the capabilities:
#
#   docker build --target bot-sandbox -t kyku-bot-sandbox .
#   docker run -p 8080:8080 --cap-add SYS_ADMIN --cap-add NET_ADMIN \
#     --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     -e GITHUB_APP_ID=… … kyku-bot-sandbox
#
# Without them the bot logs at start why it will refuse every provider.
FROM debian:12-slim AS bot-sandbox
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends bubblewrap util-linux ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/kyku /out/action /out/bot /usr/local/bin/
COPY --from=build /out/kyku-engine /usr/local/bin/
USER 0:0
ENV KYKU_BOT_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bot"]

# The default image (the last stage). Static binaries only: no shell, no
# package manager; CA certificates and tzdata come with the base. 65532 is
# distroless' "nonroot" user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kyku /out/action /out/bot /usr/local/bin/
COPY --from=build /out/kyku-engine /usr/local/bin/
USER 65532:65532
ENV KYKU_BOT_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bot"]
