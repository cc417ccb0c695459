// Run notebook cells in Pyodide under Node, as a browser kernel would, and print what each did.
//
//   node run_cells.mjs PYODIDE_DIR < job.json
//
// job.json: {"wheels": [paths of wheels to install], "cells": what to run, "driver": Python
// source defining the function "entry" (default run_cells) that takes the cells as JSON text
// and returns JSON text}. Prints that JSON text on stdout.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const pyodideDir = path.resolve(process.argv[2]);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const job = JSON.parse(readFileSync(0, "utf-8"));
// Quiet: the kernel's own chatter would mix with the JSON answer on stdout.
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/", stdout: () => {}, stderr: () => {} });
const site = pyodide.runPython("import site; site.getsitepackages()[0]");
try {
  for (const wheel of job.wheels) {
    pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: site });
  }
  pyodide.runPython(job.driver);
  const entry = pyodide.globals.get(job.entry || "run_cells");
  process.stdout.write(await entry(JSON.stringify(job.cells)));
} catch (error) {
  // Pyodide's own errors print its minified source: the message alone says what went wrong.
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
