# Go: Debian's toolchain (1.19; the exercises' go.mod say 1.18), no network at any time:
# modules resolve from the exercise alone (they have no dependencies) and a build that asks
# for one fails. No cgo: the image has no C compiler, and a candidate may not reach C.
ENV CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on
# The standard library's build and vet facts made once (testing and what the exercises
# import, with the analyzers languages/go/testrun.py runs), copied into a session's build
# cache by its first build: a fresh cache spends 15 s on them in every session.
RUN mkdir -p /tmp/warm && cd /tmp/warm && printf 'module warm\n\ngo 1.18\n' > go.mod \
 && printf 'package warm\n\nimport (\n\t"bufio"\n\t"bytes"\n\t"errors"\n\t"fmt"\n\t"io"\n\t"math"\n\t"math/big"\n\t"math/rand"\n\t"regexp"\n\t"sort"\n\t"strconv"\n\t"strings"\n\t"sync"\n\t"time"\n\t"unicode"\n)\n\nvar _ = []interface{}{bufio.NewReader, bytes.NewBuffer, errors.New, fmt.Sprint, io.EOF, math.Abs, big.NewInt, rand.Intn, regexp.MustCompile, sort.Ints, strconv.Itoa, strings.ToUpper, sync.NewCond, time.Now, unicode.IsUpper}\n' > warm.go \
 && printf 'package warm\n\nimport "testing"\n\nfunc TestWarm(t *testing.T) {}\n' > warm_test.go \
 && GOCACHE=/opt/harness/gocache GOPATH=/tmp/gopath go test -c -o /tmp/warm.test . \
 && GOCACHE=/opt/harness/gocache GOPATH=/tmp/gopath go vet -atomic -bool -buildtags -errorsas -ifaceassert -nilfunc -printf -stringintconv . \
 && go version | grep -Eq 'go1\.(1[89]|[2-9][0-9])' \
 && rm -rf /tmp/warm /tmp/warm.test /tmp/gopath && chmod -R a+rX /opt/harness/gocache
