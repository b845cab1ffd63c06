# Go: Debian's Go 1.21 from bookworm-backports, from the mirror the base's apt already uses
# (the exercises' go.mod say 1.18, but dnd-character's reference uses 1.21's `slices`, and
# Aider's benchmark runs 1.21.5); bookworm's own is 1.19. No network at any time: modules
# resolve from the exercise alone (they have no dependencies) and a build that asks for one
# fails, and GOTOOLCHAIN=local keeps Go from looking for another toolchain. No cgo: the
# image has no C compiler, and a candidate may not reach C.
RUN mirror=$(grep -rhoE 'https?://[^ ]+/debian' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | head -1) \
 && echo "deb ${mirror:-http://deb.debian.org/debian} bookworm-backports main" > /etc/apt/sources.list.d/backports.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends golang-1.21-go \
 && rm -rf /var/lib/apt/lists/* /etc/apt/sources.list.d/backports.list /usr/share/doc/golang-1.21*
ENV PATH=/usr/lib/go-1.21/bin:$PATH \
    CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on GOTOOLCHAIN=local
# The standard library's build and vet facts made once (testing and what the exercises
# import, with the analyzers languages/go/testrun.py runs), copied into a session's build
# cache by its first build: a fresh cache spends 15 s on them in every session.
RUN mkdir -p /tmp/warm && cd /tmp/warm && printf 'module warm\n\ngo 1.18\n' > go.mod \
 && printf 'package warm\n\nimport (\n\t"bufio"\n\t"bytes"\n\t"errors"\n\t"fmt"\n\t"io"\n\t"math"\n\t"math/big"\n\t"math/rand"\n\t"regexp"\n\t"sort"\n\t"strconv"\n\t"strings"\n\t"sync"\n\t"time"\n\t"unicode"\n)\n\nvar _ = []interface{}{bufio.NewReader, bytes.NewBuffer, errors.New, fmt.Sprint, io.EOF, math.Abs, big.NewInt, rand.Intn, regexp.MustCompile, sort.Ints, strconv.Itoa, strings.ToUpper, sync.NewCond, time.Now, unicode.IsUpper}\n' > warm.go \
 && printf 'package warm\n\nimport "testing"\n\nfunc TestWarm(t *testing.T) {}\n' > warm_test.go \
 && GOCACHE=/opt/harness/gocache GOPATH=/tmp/gopath go test -c -o /tmp/warm.test . \
 && GOCACHE=/opt/harness/gocache GOPATH=/tmp/gopath go vet -atomic -bool -buildtags -directive -errorsas -ifaceassert -nilfunc -printf -slog -stringintconv . \
 && go version | grep -q 'go1\.21\.' \
 && rm -rf /tmp/warm /tmp/warm.test /tmp/gopath && chmod -R a+rX /opt/harness/gocache
