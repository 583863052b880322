#!/usr/bin/Rscript
# Writes delong.json, the reference fixture for stats.DeLong.
#
# Run from this folder with Debian's R and r-cran-proc:
#
#     Rscript gen_delong.R
#
# Expected values come from pROC's roc.test(method = "delong", paired = TRUE)
# on two roc objects built with direction "<" (controls score lower, so a
# higher score means positive) and levels c(0, 1). pROC reports the AUCs, Z,
# the p-value and the interval of the difference; the standard error is the
# interval's half-width over qnorm((1 + conf.level) / 2). Each case is also
# checked against the brute-force DeLong definition (placement values over
# all positive-negative pairs, ties counted one half), so the fixture fails to
# build if the two disagree.

suppressPackageStartupMessages(library(pROC))
library(jsonlite)

set.seed(20240601)

brute <- function(y, a, b) {
  pos <- which(y == 1)
  neg <- which(y == 0)
  psi <- function(x, z) (x > z) + 0.5 * (x == z)
  place <- function(s) {
    k <- outer(s[pos], s[neg], psi)
    list(v10 = rowMeans(k), v01 = colMeans(k), auc = mean(k))
  }
  pa <- place(a)
  pb <- place(b)
  v <- var(pa$v10 - pb$v10) / length(pos) + var(pa$v01 - pb$v01) / length(neg)
  list(diff = pa$auc - pb$auc, se = sqrt(v))
}

# jsonlite prints at most 15 significant digits; numbers are written
# verbatim with 17 so that they round-trip exactly.
num <- function(x) structure(sprintf("%.17g", x), class = "json")
vec <- function(x) structure(paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]"),
                             class = "json")

cases <- list()
add <- function(name, y, a, b, conf = 0.95) {
  r1 <- roc(y, a, direction = "<", levels = c(0, 1), quiet = TRUE)
  r2 <- roc(y, b, direction = "<", levels = c(0, 1), quiet = TRUE)
  t <- roc.test(r1, r2, method = "delong", paired = TRUE, conf.level = conf)
  ci <- as.numeric(t$conf.int)
  se <- (ci[2] - ci[1]) / 2 / qnorm((1 + conf) / 2)
  diff <- as.numeric(t$estimate[1] - t$estimate[2])
  chk <- brute(y, a, b)
  stopifnot(abs(chk$diff - diff) < 1e-12, abs(chk$se - se) < 1e-9 * max(se, 1e-300))
  cases[[length(cases) + 1]] <<- list(
    name = name,
    source = sprintf("pROC %s roc.test(method = \"delong\", paired = TRUE)",
                     as.character(packageVersion("pROC"))),
    labels = vec(y), left = vec(a), right = vec(b),
    confidence = num(conf),
    want = list(
      auc_left = num(t$estimate[1]),
      auc_right = num(t$estimate[2]),
      diff = num(diff), se = num(se),
      z = num(t$statistic),
      p_value = num(t$p.value),
      ci_low = num(ci[1]), ci_high = num(ci[2])
    )
  )
}

y <- c(0, 0, 1, 1, 0, 1, 0, 1)
add("eight samples", y, c(.1, .4, .35, .8, .2, .9, .5, .45),
    c(.2, .3, .5, .6, .1, .7, .65, .4))

y <- rbinom(60, 1, 0.4)
a <- y * 0.8 + rnorm(60)
b <- y * 0.5 + rnorm(60)
add("sixty samples, continuous", y, a, b)

y <- rbinom(100, 1, 0.3)
add("ties from rounding", y, round(y * 0.7 + rnorm(100), 1),
    round(y * 0.6 + rnorm(100), 1))

y <- rbinom(80, 1, 0.5)
add("correlated scorers at 90%", y, y + rnorm(80), y + rnorm(80) * 0.9 + 0.1, conf = 0.9)

y <- c(rep(1, 5), rep(0, 95))
add("rare positives", y, y * 1.2 + rnorm(100), y * 0.4 + rnorm(100))

y <- rbinom(500, 1, 0.5)
s <- rnorm(500)
add("five hundred samples, shared signal", y, y * 0.6 + s + rnorm(500) * 0.3,
    y * 0.55 + s + rnorm(500) * 0.3)

y <- c(1, 1, 0, 0, 1, 0, 0)
add("two scorers with discrete scores", y, c(3, 2, 1, 2, 3, 1, 2),
    c(1, 2, 1, 1, 2, 2, 1))

doc <- list(
  generator = "gen_delong.R",
  versions = list(R = paste(R.version$major, R.version$minor, sep = "."),
                  pROC = as.character(packageVersion("pROC"))),
  cases = cases
)
writeLines(toJSON(doc, auto_unbox = TRUE, json_verbatim = TRUE, pretty = TRUE), "delong.json")
