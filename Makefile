# uploader-tui — build, test and demo on a fresh Debian machine.
SHELL := /bin/bash
APT_PACKAGES := libcurl4-openssl-dev libncurses-dev libsqlite3-dev tmux curl python3 python3-pip
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := $(shell swift build --show-bin-path 2>/dev/null || echo .build/debug)

.PHONY: all deps build test demo clean

all: build

## Installs the Debian packages the build, tests and demo need (only those missing).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@# The S3 tests run against moto's S3 server and read objects back with boto3.
	@python3 -c 'import moto.server, boto3, flask_cors' 2>/dev/null || python3 -m pip install -q 'moto[server]' boto3

build: deps
	swift build --product uploader-tui
	swift build --product uploader-server

## Unit and integration tests: real libcurl against the reference server on 127.0.0.1.
test: deps
	swift build --build-tests
	@# CI shows only the tail of the log, so the failures are printed again at the end.
	@set -o pipefail; UPLOADER_BIN="$(BIN)" swift test --skip-build 2>&1 | tee .build/test.log || { \
		status=$$?; echo "==== failed tests ===="; grep -E '✘|error:|fatal' .build/test.log | tail -40; exit $$status; }

## Starts uploader-server on a free port, makes sample images, uploads them with uploader-tui, stops the server.
demo: build
	BIN="$(BIN)" scripts/demo.sh

clean:
	rm -rf .build demo-data
