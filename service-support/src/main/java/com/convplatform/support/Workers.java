package com.convplatform.support;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.BlockingOperationNotAllowedException;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** Blocking work dispatched from the event loop. */
public final class Workers {
    private Workers() {
    }

    /**
     * Runs the work on a worker of the current (request's) context, so its logs carry the request and trace ids; not
     * ordered with other blocking work of that context. Called on a Vert.x context, such as a request's event loop.
     */
    public static <T> CompletionStage<T> onWorker(Callable<T> work) {
        return Vertx.currentContext().executeBlocking(work, false).toCompletionStage();
    }

    /**
     * Runs the work here, on the request's event loop, when all it needs is in memory, and otherwise on a worker: the
     * work runs here until a step would block (the framework's {@link BlockingOperationNotAllowedException}: a
     * Hibernate session, or {@link #requireBlockingAllowed}), and is then run again, whole, by {@link #onWorker}. What
     * the work spends before such a step it must spend once per request ({@link #firstInRequest}). The usual path of
     * a token (0.1 ms of signature checking and signing) so saves two hand-offs between threads: management-service's
     * CPU per token fell by a fifth (docs/capacity.md).
     */
    public static <T> CompletionStage<T> inMemoryOrOnWorker(Callable<T> work) {
        try {
            return CompletableFuture.completedFuture(work.call());
        } catch (BlockingOperationNotAllowedException needsWorker) {
            return onWorker(work);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Throws the framework's refusal on an event loop, before a step that blocks and that Quarkus does not check. */
    public static void requireBlockingAllowed(String step) {
        if (!BlockingOperationControl.isBlockingAllowed()) {
            throw new BlockingOperationNotAllowedException(step + " blocks: it runs on a worker thread");
        }
    }

    /**
     * True the first time it is asked for this key in the current request (its Vert.x context, shared by the event
     * loop and the worker that runs the work again), false after: a budget is spent once per request.
     */
    public static boolean firstInRequest(String key) {
        Context request = Vertx.currentContext();
        if (request == null || !VertxContext.isDuplicatedContext(request)) {
            return true; // not a request's own context: its data would outlive the request
        }
        if (request.getLocal(key) != null) {
            return false;
        }
        request.putLocal(key, Boolean.TRUE);
        return true;
    }
}
