package com.convplatform.support;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Runs an action once the current transaction has committed, and never when it rolls back: metrics counted inside a
 * transaction that is then rolled back (and, with {@link GroupCommit}, written again item by item) would count twice.
 */
@ApplicationScoped
public class AfterCommit {
    private final TransactionSynchronizationRegistry transactions;

    public AfterCommit(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
    }

    /** Must be called within a transaction. */
    public void run(Runnable action) {
        run(action, () -> {
            // nothing when the transaction does not commit
        });
    }

    /**
     * Runs {@code onCommit} once the current transaction has committed, {@code otherwise} once it has ended in any
     * other way (rolled back, or its outcome is unknown). Must be called within a transaction.
     */
    public void run(Runnable onCommit, Runnable otherwise) {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // nothing before the commit
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    onCommit.run();
                } else {
                    otherwise.run();
                }
            }
        });
    }
}
