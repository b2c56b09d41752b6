#!/usr/bin/env bash
# The confluent-schema-registry tests' server: Aiven's karapace (Apache-2.0; not on PyPI) from
# its source at a pinned commit, in its own virtualenv under ~/.cache/tremorc (it pins
# protobuf 3.20, which must not meet the job's Python), with its Go protobuf helper
# (protopacelib) built by `go build -buildmode=c-shared`. That helper is built against upstream
# bufbuild/buf v1.34.0 (karapace's fork of buf is not served by the Go module proxy) under a
# module path buf's private packages accept. karapace stores its schemas in Kafka: kafka.sh.
# Set KARAPACE_GIT to a local clone to install without GitHub. Idempotent.
set -euo pipefail
if ! command -v go >/dev/null; then
    echo "schema_registry.sh: skipped, no Go toolchain (karapace's protopacelib needs it)"
    exit 0
fi
home=${KARAPACE_HOME:-~/.cache/tremorc}
commit=3bbc1f8d30d7b650f49b75128ba9a46fdab61a67
src=$home/karapace-src/src
venv=$home/karapace-venv
mkdir -p "$home"
if [ ! -e "$src/karapace/__main__.py" ] || [ ! -e "$home/karapace-go/go/protopace/main.go" ]; then
    git=$home/karapace.git
    if [ ! -d "$git" ] && ! git clone --quiet --bare \
        "${KARAPACE_GIT:-https://github.com/Aiven-Open/karapace.git}" "$git"; then
        rm -rf "$git"
        echo "schema_registry.sh: skipped, karapace's source is not reachable (set KARAPACE_GIT);" \
            "the confluent-schema-registry server tests skip"
        exit 0
    fi
    mkdir -p "$home/karapace-src" "$home/karapace-go"
    git --git-dir="$git" archive "$commit" src | tar -x -C "$home/karapace-src"
    git --git-dir="$git" archive "$commit" go requirements | tar -x -C "$home/karapace-go"
    echo '__version__ = "0.0.0+tremorc"' >"$src/karapace/version.py"
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import fastapi, aiokafka, avro' 2>/dev/null; then
    python3 -m venv "$venv"
    # karapace's patched avro comes from a GitHub archive; PyPI's avro serves the same API
    grep -v -e '^avro @' -e '^sentry' "$home/karapace-go/requirements/requirements.txt" \
        >"$home/karapace-requirements.txt"
    echo 'avro==1.12.0' >>"$home/karapace-requirements.txt"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$home/karapace-requirements.txt"
fi
if [ ! -e "$src/protopacelib.so" ]; then
    cd "$home/karapace-go/go/protopace"
    go mod edit -dropreplace github.com/bufbuild/buf
    grep -rl 'github.com/Aiven-Open/karapace/go/protopace' . \
        | xargs sed -i 's#github.com/Aiven-Open/karapace/go/protopace#github.com/bufbuild/karapace-protopace#g'
    GOFLAGS=-mod=mod go build -buildmode=c-shared -o "$src/protopacelib.so" .
fi
echo "schema_registry.sh: karapace ${commit:0:10} in $venv (protopacelib built with go)"
