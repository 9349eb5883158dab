package dev.ledgerlab.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs calls at the same moment, one thread each, behind a start gate, so they really race. */
public final class Concurrently {

    private Concurrently() {
    }

    /** The results in the order of {@code calls}; any failure of a call is rethrown. */
    public static <T> List<T> atOnce(List<Callable<T>> calls)
            throws InterruptedException, ExecutionException, TimeoutException {
        var pool = Executors.newFixedThreadPool(calls.size());
        try {
            var ready = new CountDownLatch(calls.size());
            var go = new CountDownLatch(1);
            var futures = new ArrayList<Future<T>>();
            for (var call : calls) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return call.call();
                }));
            }
            if (!ready.await(30, TimeUnit.SECONDS)) {
                throw new TimeoutException("the callers did not all get ready");
            }
            go.countDown();
            var results = new ArrayList<T>();
            for (var future : futures) {
                results.add(future.get(120, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
