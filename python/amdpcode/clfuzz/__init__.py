"""Compiler differential testing: random UB-free OpenCL C kernels (`gen`), compiled by clang-22
for AMD targets and run on amdpcode, compared with PoCL on the host CPU (`core`), in campaigns
on local processes or Ray (`campaign`, `python -m amdpcode.clfuzz`), with triage (`triage`,
`known`) and cvise reduction (`reduce`, `check`). See docs/clfuzz.md."""
