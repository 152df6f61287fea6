# uploader-tui — build, test and demo on a fresh Debian machine.
SHELL := /bin/bash
# openssl and nginx: the TLS tests make certificates and serve them over TLS on 127.0.0.1. zsh and fish: the
# completion tests run the scripts in the shells they are for.
APT_PACKAGES := libcurl4-openssl-dev zlib1g-dev libncurses-dev libsqlite3-dev libxxhash-dev xxhash libvips-dev tmux curl python3 python3-pip man-db make \
	openssl nginx zsh fish
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := $(shell swift build --show-bin-path 2>/dev/null || echo .build/debug)
BENCH_APT_PACKAGES := nginx libnginx-mod-http-dav-ext rclone hyperfine time libvips-tools iproute2 openssl tmux
BENCH_RUNS ?= 5
FUZZ_SECONDS ?= 600

# The release build users install and `make bench` measures: the Swift runtime and Foundation linked in, so the
# binary runs without a Swift toolchain (Package.swift adds the linker settings of release builds).
RELEASE := -c release --static-swift-stdlib
PREFIX ?= $(HOME)/.local

.PHONY: all deps build test demo release install install-files bench fuzz clean

# Installs those of the packages $(1) that are missing. The nginx package starts a system nginx on port 80 where
# services run; a policy-rc.d that refuses (only while installing, and only if the machine has none) keeps it stopped.
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		guard=; if [ ! -e /usr/sbin/policy-rc.d ]; then guard=1; \
			printf '#!/bin/sh\nexit 101\n' | $(SUDO) tee /usr/sbin/policy-rc.d >/dev/null && $(SUDO) chmod +x /usr/sbin/policy-rc.d; fi; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
		status=$$?; [ -z "$$guard" ] || $(SUDO) rm -f /usr/sbin/policy-rc.d; [ $$status = 0 ] || exit $$status; \
	fi
endef

all: build

## Installs the Debian packages the build, tests and demo need (only those missing).
deps:
	$(call apt_install,$(APT_PACKAGES))
	@# The S3 tests run against moto's S3 server and read objects back with boto3.
	@python3 -c 'import moto.server, boto3, flask_cors' 2>/dev/null || python3 -m pip install -q 'moto[server]' boto3

build: deps
	swift build --product uploader-tui
	swift build --product uploader-server

## Unit and integration tests: real libcurl against the reference server on 127.0.0.1.
test: deps
	@# The animated and multi-page test images, with their GPS metadata, are written and read back with Pillow.
	@python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow
	swift build --build-tests
	swift build --product generate-manual
	@# CI shows only the tail of the log, so the failures are printed again at the end.
	@set -o pipefail; UPLOADER_BIN="$(BIN)" swift test --skip-build 2>&1 | tee .build/test.log || { \
		status=$$?; echo "==== failed tests ===="; grep -E '✘|error:|fatal' .build/test.log | tail -40; exit $$status; }

## Starts uploader-server on a free port, makes sample images, uploads them with uploader-tui, stops the server.
demo: build
	@# The sample phone photos (EXIF orientation and GPS) are written with Pillow.
	@python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow
	BIN="$(BIN)" scripts/demo.sh

## The self-contained release binaries, in the folder `swift build -c release --static-swift-stdlib --show-bin-path` names.
release: deps
	swift build $(RELEASE) --product uploader-tui
	swift build $(RELEASE) --product uploader-server

## Installs the release uploader-tui and uploader-server into $(PREFIX)/bin (default ~/.local/bin), their man pages
## into $(PREFIX)/share/man/man1 and uploader-tui's bash, zsh and fish completions under $(PREFIX)/share.
install: release
	$(MAKE) install-files INSTALL_FROM="$$(swift build $(RELEASE) --show-bin-path)"

## What `install` copies, from the binaries in INSTALL_FROM (the tests install a debug build this way). The man pages
## and completions are made from the binaries' own help: swift-argument-parser's generate-manual and
## --generate-completion-script.
INSTALL_FROM ?= $(BIN)
install-files:
	@# Built once (make test builds it too, since a test installs while swift test holds the build folder).
	@[ -x "$(BIN)/generate-manual" ] || swift build --product generate-manual
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/man/man1" "$(PREFIX)/share/bash-completion/completions" \
		"$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$(INSTALL_FROM)/uploader-tui" "$(INSTALL_FROM)/uploader-server" "$(PREFIX)/bin/"
	for tool in uploader-tui uploader-server; do \
		"$(BIN)/generate-manual" "$(INSTALL_FROM)/$$tool" --authors "uploader-tui developers" \
			-o "$(PREFIX)/share/man/man1" || exit 1; \
	done
	@# The generator copies the help's blank lines, which mdoc warns about; they are paragraph breaks.
	sed -i 's/^$$/.Pp/' "$(PREFIX)/share/man/man1/uploader-tui.1" "$(PREFIX)/share/man/man1/uploader-server.1"
	"$(INSTALL_FROM)/uploader-tui" --generate-completion-script bash > "$(PREFIX)/share/bash-completion/completions/uploader-tui"
	"$(INSTALL_FROM)/uploader-tui" --generate-completion-script zsh > "$(PREFIX)/share/zsh/site-functions/_uploader-tui"
	"$(INSTALL_FROM)/uploader-tui" --generate-completion-script fish > "$(PREFIX)/share/fish/vendor_completions.d/uploader-tui.fish"

## Release build against curl, rclone, aws and its own screen, on 127.0.0.1 and a shaped link; writes bench/RESULTS.md.
## BENCH_RUNS=N sets the counted rounds per comparison (default 5).
bench: release
	$(call apt_install,$(BENCH_APT_PACKAGES))
	@# The photos of comparison 6 are made with Pillow; comparison 12 runs moto's S3 server, boto3 and the aws CLI.
	@python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow
	@python3 -c 'import moto.server, boto3, flask_cors' 2>/dev/null || python3 -m pip install -q 'moto[server]' boto3
	@command -v aws >/dev/null || python3 -m pip install -q awscli
	python3 bench/bench.py --bin "$$(swift build $(RELEASE) --show-bin-path)" --runs $(BENCH_RUNS)

## libFuzzer targets of the parsers (Fuzz/, docs/fuzzing.md), FUZZ_SECONDS each (default 600), one after another,
## niced; fails if one crashes. Not part of `make test`. FUZZ_TARGETS="sanitizer presign" runs only those.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

clean:
	rm -rf .build .build-fuzz demo-data bench/data bench/work
