# JavaScript: Debian's Node.js (18) and npm; Jest and the Babel preset the exercises'
# package.json name (the test-running part of the list Aider's benchmark image installs into
# /npm-install) fetched from the npm registry now, at image-build time, into one folder that a
# round links as its node_modules, trusting the certificates the host trusts
# (sandbox/image.py). Nothing is fetched while a test runs.
COPY host-ca.crt /tmp/host-ca.crt
RUN mkdir -p /opt/harness/npm && cd /opt/harness/npm \
 && printf '{"name": "harness-jest", "private": true}\n' > package.json \
 && npm install --no-audit --no-fund --no-update-notifier --loglevel=error --cafile=/tmp/host-ca.crt \
      jest@29.7.0 babel-jest@29.6.4 @babel/core@7.25.2 @exercism/babel-preset-javascript@0.2.1 core-js@3.37.1 \
 && node --version | grep -Eq '^v(1[89]|[2-9][0-9])\.' \
 && rm -rf /root/.npm /tmp/* && chmod -R a+rX /opt/harness/npm
