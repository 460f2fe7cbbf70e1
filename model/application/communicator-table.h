/*
 * CommunicatorTable: the communicators one rank knows, by pg name.
 */
#ifndef CHAKRA_COMMUNICATOR_TABLE_H
#define CHAKRA_COMMUNICATOR_TABLE_H

#include "comm-group-file.h"
#include "communicator.h"

#include "ns3/et-node.h"
#include "ns3/rank-roles.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief The communicators of one rank: those a process_group:init node declares, those a
 * comm-groups file lists (ASTRA-sim), and the world; a pg name nobody declares spans every
 * rank under its own name, with a warning.
 */
class CommunicatorTable
{
  public:
    /** Receives the table's warnings. */
    using WarnFn = std::function<void(const std::string&)>;

    /**
     * \param rank this rank
     * \param peerCount ranks in the job
     * \param hostOf host of every rank (null: each rank its own host)
     */
    void Configure(uint32_t rank, uint32_t peerCount, SharedRankList hostOf);
    /** \param groups numbered communicators' members (or null) */
    void SetCommGroups(std::shared_ptr<const CommGroupFile> groups);
    /** \return the comm-groups file (or null) */
    const CommGroupFile* GetCommGroups() const;
    /**
     * The trace is a role's (RankRoles): the ranks its groups list are mapped by \p shift
     * (and sorted), and its group names renamed (RankShift::Name); the nodes still name a
     * group by the trace's name. Before any group is declared.
     */
    void SetRankShift(RankShift shift);
    /** \return the name this rank's group \p pg (as the trace names it) has in the job */
    std::string NameOf(const std::string& pg) const;
    /** \param tracePath this rank's trace (named in warnings) \param warn where warnings go */
    void SetWarnings(std::string tracePath, WarnFn warn);

    /** \return the communicator \p node names, made on first use (the world if unknown) */
    Communicator& Of(const EtNode& node);
    /** \return true if \p pg is known already */
    bool Has(const std::string& pg) const;
    /** \return true if a process_group:init node declared \p pg without this rank */
    bool IsForeign(const std::string& pg) const;

    /** A process_group:init node declared some groups (undeclared names then warn). */
    void NoteDeclared(bool any);
    /**
     * Adds a group a process_group:init node declares: a communicator if this rank is a member,
     * else remembered as foreign.
     * \return "" or why the group cannot be (a member beyond the job's ranks)
     */
    std::string Declare(const ProcessGroupSpec& group);

    /** \return how to name a communicator id in messages ("communicator 'tp0'") */
    std::string Label(uint64_t id) const;

  private:
    /** \return the world communicator (every rank), made on first use */
    Communicator& World();
    /** \return a communicator of this rank made of \p members (global ranks, with this rank) */
    Communicator Make(const std::string& name, std::vector<uint32_t> members) const;
    /** Warns that \p pg, first named by \p node, is not declared: it spans every rank. */
    void WarnUndeclared(const std::string& pg, const EtNode& node) const;
    /** \return the host of \p rank (the rank itself when no host map was given) */
    uint32_t HostOf(uint32_t rank) const;

    uint32_t m_rank{0};
    uint32_t m_peerCount{0};
    SharedRankList m_hostOf;
    std::shared_ptr<const CommGroupFile> m_commGroups;
    std::string m_tracePath;
    WarnFn m_warn;
    RankShift m_shift;                                   //!< the role's shift (identity)
    std::map<std::string, Communicator> m_communicators; //!< by pg name (the trace's)
    bool m_declaredGroups{false}; //!< a process_group:init node declared some groups
    /** Ids (CommunicatorId) of the groups process_group:init declared without this rank, sorted:
     *  a collective on one of them is a trace error (8 bytes a group, not its member list). */
    std::vector<uint64_t> m_foreignGroups;
};

} // namespace ns3

#endif // CHAKRA_COMMUNICATOR_TABLE_H
