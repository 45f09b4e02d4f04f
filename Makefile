# The two commands of README.md: `make demo` and `make test`. Both install what is
# missing (Debian packages via scripts/deps.sh, Go modules via the module proxy) first.
GO ?= go

.PHONY: all deps build demo test fuzz bench clean

all: build

deps:
	@bash scripts/deps.sh

build: deps
	$(GO) build -o bin/reid ./cmd/reid

demo: build
	./bin/reid demo

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Fuzz the CSV loader (60 s by default: make fuzz FUZZTIME=10m).
FUZZTIME ?= 60s
fuzz: deps
	$(GO) test ./datasets -run '^$$' -fuzz FuzzLoadCSV -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
