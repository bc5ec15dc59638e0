#!/usr/bin/env node
// Empties dist/ before `npm run build`, so the tarball holds only what this build emitted:
// no file of a source since renamed or deleted, and nothing an older tsconfig emitted
// (declarations, source maps).
'use strict';
const fs = require('fs');
const path = require('path');

fs.rmSync(path.resolve(__dirname, '..', 'dist'), { recursive: true, force: true });
