/*
 * Native baseline of the gate's exact pass (bench only, compiled by bench/native.ts at bench time with
 * `cc -O3 -march=native`): single-thread sgemv (Float32 rows · Float32 candidate, 16 independent
 * accumulators so the compiler vectorizes it without -ffast-math) + a shifted log-sum-exp
 * (expf, summed in double), for every candidate of a file, timed per candidate in thread CPU time.
 *
 * usage: scan <rows.f32> <queries.f32> <n> <d> <queries> <kappa> <rounds>
 * prints one line per round: "<p50 ms> <first score>"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double score(const float *X, long n, long d, const float *q, float kappa, float *cos) {
  float m = -INFINITY;
  for (long i = 0; i < n; i++) {
    const float *x = X + i * d;
    float acc[16] = {0};
    long j = 0;
    for (; j + 16 <= d; j += 16)
      for (int k = 0; k < 16; k++) acc[k] += x[j + k] * q[j + k];
    float s = 0;
    for (int k = 0; k < 16; k++) s += acc[k];
    for (; j < d; j++) s += x[j] * q[j];
    cos[i] = s;
    if (s > m) m = s;
  }
  double sum = 0;
  for (long i = 0; i < n; i++) sum += expf(kappa * (cos[i] - m));
  return m + log(sum / n) / kappa;
}

static float *load(const char *path, size_t count) {
  float *p = aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64);
  FILE *f = fopen(path, "rb");
  if (!p || !f || fread(p, sizeof(float), count, f) != count) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: scan rows queries n d queries kappa rounds\n");
    return 2;
  }
  long n = atol(argv[3]), d = atol(argv[4]), nq = atol(argv[5]);
  float kappa = (float)atof(argv[6]);
  int rounds = atoi(argv[7]);
  float *X = load(argv[1], (size_t)n * d), *Q = load(argv[2], (size_t)nq * d);
  float *cos = malloc(n * sizeof(float));
  double *ts = malloc(nq * sizeof(double)), first = 0;
  for (int i = 0; i < 3 && i < nq; i++) first = score(X, n, d, Q + i * d, kappa, cos); /* warm-up */
  for (int r = 0; r < rounds; r++) {
    for (long i = 0; i < nq; i++) {
      double t = cpu_ms();
      double s = score(X, n, d, Q + i * d, kappa, cos);
      ts[i] = cpu_ms() - t;
      if (i == 0) first = s;
    }
    qsort(ts, nq, sizeof(double), cmp);
    printf("%.5f %.9f\n", ts[nq / 2], first);
    fflush(stdout);
  }
  return 0;
}
