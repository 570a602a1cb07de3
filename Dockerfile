# Kyku: one image with the three static binaries; its entrypoint is the
# GitHub App bot. The build commands are exactly those .ci/run runs, so a
# broken build fails CI even where no Docker engine exists.
#
#   docker build -t kyku .
#   docker run -p 8080:8080 -e GITHUB_APP_ID=… -e GITHUB_APP_PRIVATE_KEY_FILE=/keys/app.pem \
#     -e GITHUB_WEBHOOK_SECRET=… -v "$PWD/keys:/keys:ro" kyku
#   docker run --rm --entrypoint /usr/local/bin/kyku kyku plan   # the CLI
#   docker run --rm --entrypoint /usr/local/bin/action kyku      # the Action's binary

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/kyku ./cmd/kyku \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/action ./cmd/action \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/bot ./cmd/bot

# Static binaries only: no shell, no package manager; CA certificates and
# tzdata come with the base. 65532 is distroless' "nonroot" user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kyku /out/action /out/bot /usr/local/bin/
USER 65532:65532
ENV KYKU_BOT_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bot"]
