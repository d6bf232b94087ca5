# syntax=docker/dockerfile:1
#
# statusd in a container: a static binary on distroless, as a non-root user,
# with its SQLite database on a volume.
#
#   docker build --build-arg VERSION=1.2.0 --build-arg COMMIT=$(git rev-parse HEAD) -t statusd .
#   docker run -d -p 8080:8080 -v statusd-data:/data statusd --demo
#
# Arguments after the image name are more serve flags; a flag given twice
# keeps the last value, so "--db postgres://..." replaces the SQLite file.
# Other commands run with --entrypoint:
#
#   docker run --rm -i -v statusd-data:/data --entrypoint /usr/local/bin/statusd statusd \
#       import --db /data/statusd.db - < page.json

# ---- build: a static binary (no cgo: SQLite is pure Go), reproducible paths.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
        -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
        -o /out/statusd ./cmd/statusd \
    && mkdir -p /out/data

# ---- runtime: no shell, no package manager; user nonroot (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/statusd /usr/local/bin/statusd
# The volume's mount point, owned by the runtime user, so that a new named
# volume starts out writable for it.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/statusd", "serve", "--addr", "0.0.0.0:8080", "--db", "/data/statusd.db"]
